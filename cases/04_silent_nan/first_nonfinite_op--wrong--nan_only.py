# Wrong: looks for NaN only, so an op whose output is inf (exp overflow, sqrt's gradient at 0)
# is not reported.
def first_nonfinite_op(fn, *inputs):
    """Find the first aten op with a non-finite output."""
    from torch.utils._pytree import tree_leaves

    class Watch(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.index = 0
            self.first = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if self.first is None and any(isinstance(t, torch.Tensor) and bool(torch.isnan(t).any())
                                          for t in tree_leaves(out)):
                phase = "backward" if torch._C._current_autograd_node() is not None else "forward"
                self.first = {"op": str(func), "index": self.index, "phase": phase}
            self.index += 1
            return out

    with Watch() as w:
        fn(*inputs)
    return w.first
