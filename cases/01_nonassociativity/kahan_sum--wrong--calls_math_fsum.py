# Wrong by the exercise's method rule: math.fsum computes the exact sum for you. Its result
# rounded to float32 meets the bound, but the text does not allow math.fsum here.
def kahan_sum(x):
    return torch.tensor(math.fsum(x.tolist()), dtype=torch.float32)
