# Right, written differently: NumPy, unsigned bit patterns, and an explicit map that sends
# negative floats below zero (0x80000000 - u), so -0.0 and +0.0 both land on 0.
def ulp_distance(a, b):
    if a.dtype is not torch.float32 or b.dtype is not torch.float32:
        raise ValueError("both inputs must be float32")
    a_np, b_np = a.numpy(), b.numpy()
    if not (np.isfinite(a_np).all() and np.isfinite(b_np).all()):
        raise ValueError("inputs must be finite")

    def line(arr):
        u = arr.view(np.uint32).astype(np.int64)
        return np.where(u >= 0x80000000, 0x80000000 - u, u)

    return torch.from_numpy(np.abs(line(a_np) - line(b_np)).astype(np.int64))
