# Right, written differently: no explicit shift. The entries along dim are folded one at a time
# with torch.logaddexp, which is stable pairwise (and handles -inf, +inf and NaN). A folded
# reduction rounds in a different order from the solution's; the tolerance must admit it.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    columns = z.unbind(dim)
    total = columns[0]
    for column in columns[1:]:
        total = torch.logaddexp(total, column)
    return total
