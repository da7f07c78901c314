# Wrong: overwrites the answer at every bad op, so it reports the last op that carried the
# NaN on rather than the one that created it.
def first_nonfinite_op(fn, *inputs):
    """Find the first aten op with a non-finite output."""
    from torch.utils._pytree import tree_leaves

    class Watch(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.index = 0
            self.found = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if any(isinstance(t, torch.Tensor) and not torch.isfinite(t).all() for t in tree_leaves(out)):
                phase = "backward" if torch._C._current_autograd_node() is not None else "forward"
                self.found = {"op": str(func), "index": self.index, "phase": phase}
            self.index += 1
            return out

    with Watch() as w:
        fn(*inputs)
    return w.found
