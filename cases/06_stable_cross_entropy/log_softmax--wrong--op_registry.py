# Wrong (method rule): the private log-softmax kernel through the op registry `torch.ops.aten`.
def log_softmax(z, dim=-1):
    return torch.ops.aten._log_softmax(z.float(), dim, False).to(z.dtype)
