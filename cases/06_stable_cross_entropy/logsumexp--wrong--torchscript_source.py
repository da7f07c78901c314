# Wrong (method rule): the builtin called from a TorchScript source string.
def logsumexp(z, dim=-1):
    unit = torch.jit.CompilationUnit(
        "def g(z: torch.Tensor, d: int):\n    return torch.logsumexp(z, [d])\n")
    return unit.g(z.float(), dim).to(z.dtype)
