# Wrong (method): torch.logcumsumexp is torch's log-sum-exp in another form (its last entry along
# dim is the whole log-sum-exp), forbidden by the exercise text.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    return torch.logcumsumexp(z.float(), dim=dim).select(dim, -1).to(z.dtype)
