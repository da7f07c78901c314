# Wrong: decides the phase from torch.is_grad_enabled() (off during backward), so a forward
# op run under torch.no_grad() is called "backward".
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
            if self.first is None and any(isinstance(t, torch.Tensor) and not torch.isfinite(t).all()
                                          for t in tree_leaves(out)):
                phase = "forward" if torch.is_grad_enabled() else "backward"
                self.first = {"op": str(func), "index": self.index, "phase": phase}
            self.index += 1
            return out

    with Watch() as w:
        fn(*inputs)
    return w.first
