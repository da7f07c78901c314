# Right, written differently: Knuth's branch-free TwoSum in float32, which recovers the exact
# rounding error of every addition whichever operand is larger, collected in a second float32
# total and added once at the end. No float64 anywhere.
def kahan_sum(x):
    s = np.float32(0)
    err = np.float32(0)
    for a in x.numpy():
        t = s + a
        back = t - a              # the part of t that came from s
        err += (s - back) + (a - (t - back))
        s = t
    return torch.tensor(s + err, dtype=torch.float32)
