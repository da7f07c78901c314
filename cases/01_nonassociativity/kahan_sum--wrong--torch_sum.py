# Wrong: plain torch.sum. It adds in a tree of partial sums and is much better than a running
# total, but it still drops terms smaller than half a gap of the partial sums they meet.
def kahan_sum(x):
    return x.sum()
