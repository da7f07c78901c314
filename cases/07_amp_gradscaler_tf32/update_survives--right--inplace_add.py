# Right, written differently: an optimizer's in-place step on a copy of the stored weights
# (add_ of a float32 tensor into a narrower one computes in float32 and rounds once), then the
# two compared with torch.ne.
def update_survives(w, update, dtype):
    before = w.to(dtype)
    after = before.clone()
    after.add_(update)
    return torch.ne(after, before)
