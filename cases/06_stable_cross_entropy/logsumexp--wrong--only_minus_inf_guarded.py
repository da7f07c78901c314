# Wrong: handles fully masked rows (max = -inf) but forgets +inf, so a row holding +inf
# computes inf - inf and returns NaN instead of +inf.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    m = z.amax(dim=dim, keepdim=True)
    m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
    return (m + torch.log(torch.exp(z - m).sum(dim=dim, keepdim=True))).squeeze(dim)
