# Wrong (method rule): the builtin through the op registry's alias `torch.ops.aten.special_logsumexp`.
def logsumexp(z, dim=-1):
    return torch.ops.aten.special_logsumexp(z.float(), [dim]).to(z.dtype)
