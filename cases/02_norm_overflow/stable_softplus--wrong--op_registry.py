# Wrong (method rule): softplus itself, reached through the op registry `torch.ops.aten`.
def stable_softplus(x):
    return torch.ops.aten.softplus(x, 1, 20)
