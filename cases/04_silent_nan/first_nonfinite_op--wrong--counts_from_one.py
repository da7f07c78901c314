# Wrong: numbers the ops from 1 instead of 0.
def first_nonfinite_op(fn, *inputs):
    """Find the first aten op with a non-finite output."""
    from torch.utils._pytree import tree_leaves

    class Watch(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.count = 0
            self.first = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            self.count += 1
            if self.first is None and any(isinstance(t, torch.Tensor) and not torch.isfinite(t).all()
                                          for t in tree_leaves(out)):
                phase = "backward" if torch._C._current_autograd_node() is not None else "forward"
                self.first = {"op": str(func), "index": self.count, "phase": phase}
            return out

    with Watch() as w:
        fn(*inputs)
    return w.first
