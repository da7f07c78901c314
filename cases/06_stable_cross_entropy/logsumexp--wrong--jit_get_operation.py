# Wrong (method rule): the builtin fetched by its schema name from torch._C._jit_get_operation.
def logsumexp(z, dim=-1):
    op, _ = torch._C._jit_get_operation("aten::" + "logsumexp")
    return op(z.float(), [dim]).to(z.dtype)
