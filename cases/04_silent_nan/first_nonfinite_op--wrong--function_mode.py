# Wrong: uses a TorchFunctionMode, which sees Python-level torch calls (torch.log, Tensor.sum,
# Tensor.backward) but none of the aten ops that autograd runs in backward, and whose calls
# are not aten ops; it fakes the name as "aten.<name>.default".
from torch.overrides import TorchFunctionMode


def first_nonfinite_op(fn, *inputs):
    """Find the first aten op with a non-finite output."""
    from torch.utils._pytree import tree_leaves

    class Watch(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.index = 0
            self.first = None

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if self.first is None and any(isinstance(t, torch.Tensor) and not torch.isfinite(t).all()
                                          for t in tree_leaves(out)):
                self.first = {"op": f"aten.{func.__name__}.default", "index": self.index, "phase": "forward"}
            self.index += 1
            return out

    with Watch() as w:
        fn(*inputs)
    return w.first
