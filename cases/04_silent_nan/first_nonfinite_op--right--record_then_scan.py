# Right, written differently: records every op (name built from the overload's parts, a
# hand-written flatten, inside-autograd flag) and scans the record afterwards.
def first_nonfinite_op(fn, *inputs):
    """Find the first aten op with a non-finite output."""
    def flatten(obj):
        if isinstance(obj, torch.Tensor):
            return [obj]
        if isinstance(obj, (list, tuple)):
            return [t for item in obj for t in flatten(item)]
        return []

    record = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            finite = all(bool(torch.isfinite(t).all()) for t in flatten(result))
            name = f"{func.namespace}.{func._opname}.{func._overloadname}"
            record.append((name, finite, torch._C._current_autograd_node() is not None))
            return result

    with Recorder():
        fn(*inputs)
    for position, (name, finite, in_backward) in enumerate(record):
        if not finite:
            return {"op": name, "index": position, "phase": ("backward" if in_backward else "forward")}
    return None
