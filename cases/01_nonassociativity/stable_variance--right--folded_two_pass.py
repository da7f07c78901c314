# Right, with another order of operations: two passes in float32, each sum a folded (pairwise)
# reduction that adds the second half onto the first until one value is left. No correction
# term: the folded mean is off by about one rounding, which costs far less than 1 %.
def _folded_sum(v):
    while v.numel() > 1:
        half = v.numel() // 2
        v = torch.cat([v[:half] + v[half:2 * half], v[2 * half:]])
    return v[0]


def stable_variance(x):
    n = x.numel()
    mean = _folded_sum(x) / n
    deviations = x - mean
    return max((_folded_sum(deviations * deviations) / n).item(), 0.0)
