# Right, written differently: works in the input dtype, keeps the shift in the graph (no
# detach), and makes the shift finite with nan_to_num (-inf -> most negative float, +inf ->
# largest float, NaN -> 0; the NaN still propagates through exp).
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    c = torch.nan_to_num(z.max(dim=dim, keepdim=True).values)
    s = torch.exp(z - c).sum(dim=dim)
    return torch.log(s) + c.squeeze(dim)
