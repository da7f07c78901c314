# Wrong: compares with a threshold, half of eps * |w|, instead of rounding: the gap at w is
# eps * 2**k, not eps * |w|, ties go to the even neighbour, and a weight of 0 gets a threshold
# of 0 (below the smallest subnormal, an update is lost all the same).
def update_survives(w, update, dtype):
    return update.abs() > torch.finfo(dtype).eps / 2 * w.float().abs()
