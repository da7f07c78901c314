# Wrong (method rule): sums in complex128, a wider type that names neither float64 nor double;
# accurate enough for the bound, but `.to` and `torch.complex128` are not on the list.
def kahan_sum(x):
    return x.to(torch.complex128).sum().real.to(torch.float32)
