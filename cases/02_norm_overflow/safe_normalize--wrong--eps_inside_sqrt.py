# WRONG: eps under the square root. It acts as a norm floor of sqrt(eps), so slices shorter
# than that are shrunk, not divided by eps ([3, 4] with eps=10 gives [0.51, 0.68], not
# [0.3, 0.4]); the squares still overflow; in float16 eps = 1e-12 is 0, and 0/0 is NaN.
def safe_normalize(x, dim=-1, eps=1e-12):
    return x / torch.sqrt((x * x).sum(dim=dim, keepdim=True) + eps)
