# Wrong: shifts by the row maximum but never checks it is finite; a row of only -inf (or one
# holding +inf) computes inf - inf and returns NaN instead of -inf (+inf).
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    m = z.max(dim=dim, keepdim=True).values
    return (m + torch.log(torch.exp(z - m).sum(dim=dim, keepdim=True))).squeeze(dim)
