# WRONG: re-implements F.normalize: x / max(norm, eps) with the built-in norm and the clamp in
# the input dtype. [1e20, 1e20] becomes [0, 0] (1e20 / inf), and a float16 zero vector gives
# NaN because eps = 1e-12 rounds to 0.
def safe_normalize(x, dim=-1, eps=1e-12):
    return x / torch.linalg.vector_norm(x, dim=dim, keepdim=True).clamp_min(eps)
