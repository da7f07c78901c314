# Right, written differently: shift every value by the first one (any value near the mean
# works), then use the shortcut formula on the small shifted values, in float32.
def stable_variance(x):
    shifted = x - x[0]
    result = (shifted * shifted).mean() - shifted.mean() ** 2
    return torch.clamp(result, min=0.0)
