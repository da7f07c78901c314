# Wrong (method rule): the built-in loss called from a TorchScript source string.
def bce_with_logits(logits, targets):
    unit = torch.jit.CompilationUnit(
        "def g(x, y):\n    return torch.binary_cross_entropy_with_logits(x, y, None, None, 1)\n")
    return unit.g(logits, targets)
