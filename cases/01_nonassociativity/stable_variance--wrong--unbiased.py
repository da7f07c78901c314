# Wrong: the sample (unbiased) variance, dividing by n - 1 instead of n. Stable, but not the
# population variance the contract asks for: [1, 2, 3, 4] gives 1.667 instead of 1.25.
def stable_variance(x):
    if x.numel() < 2:
        return 0.0
    return torch.var(x).item()
