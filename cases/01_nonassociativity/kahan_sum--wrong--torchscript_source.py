# Wrong (method rule): the float64 sum compiled from a TorchScript source string.
def kahan_sum(x):
    unit = torch.jit.CompilationUnit("def g(x):\n    return x.double().sum().float()\n")
    return unit.g(x)
