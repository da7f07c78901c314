# Wrong: a recursive pairwise (tree) sum in float32 with no compensation: each half summed on its
# own, then the two halves added. Far better than a running total, but each term still meets about
# log2(n) roundings: 1.0 followed by one group per tree level, each just under half the gap above
# 1.0, loses one group per level, more than the 2 * eps * sum(|x_i|) the exercise asks for.
def kahan_sum(x):
    values = x.detach().cpu().numpy()

    def tree(lo, hi):
        if hi - lo == 0:
            return np.float32(0.0)
        if hi - lo == 1:
            return values[lo]
        mid = (lo + hi) // 2
        return tree(lo, mid) + tree(mid, hi)

    return torch.tensor(tree(0, len(values)), dtype=torch.float32)
