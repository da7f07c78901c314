# Wrong: only counts the ops whose output it can check (floating-point tensors), so ops that
# return a number (.item()) or an integer tensor (argmax) shift the index.
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
            floats = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor) and t.is_floating_point()]
            if not floats:
                return out
            if self.first is None and any(not torch.isfinite(t).all() for t in floats):
                phase = "backward" if torch._C._current_autograd_node() is not None else "forward"
                self.first = {"op": str(func), "index": self.index, "phase": phase}
            self.index += 1
            return out

    with Watch() as w:
        fn(*inputs)
    return w.first
