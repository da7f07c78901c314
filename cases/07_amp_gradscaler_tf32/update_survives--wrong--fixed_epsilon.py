# Wrong: a fixed epsilon instead of the spacing at w: an update survives when it is at least the
# dtype's eps, whatever the size of the weight (eps is the gap next to 1 only).
def update_survives(w, update, dtype):
    return update.abs() >= torch.finfo(dtype).eps
