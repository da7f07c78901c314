# Right, written differently: recursion that returns lists (no shared set), tensors compared
# as integer tensors of the same element size (torch.equal on integers is bitwise), arrays by
# a structured tuple, floats through float.hex.
_INTEGER_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def differences(a, b, _path=""):
    def at(part):
        return f"{_path}.{part}" if _path else str(part)

    if isinstance(a, Mapping) and isinstance(b, Mapping):
        out = [at(k) for k in a if k not in b] + [at(k) for k in b if k not in a]
        for k in a:
            if k in b:
                out += differences(a[k], b[k], at(k))
        return sorted(set(out))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return [_path]
        return sorted(set(p for i, (u, v) in enumerate(zip(a, b)) for p in differences(u, v, at(i))))
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if (a.dtype, tuple(a.shape)) != (b.dtype, tuple(b.shape)):
            return [_path]
        kind = _INTEGER_OF_SIZE[a.element_size()]
        same = torch.equal(a.detach().reshape(-1).contiguous().view(kind), b.detach().reshape(-1).contiguous().view(kind))
        return [] if same else [_path]
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        same = (a.dtype.str, a.shape, a.tobytes()) == (b.dtype.str, b.shape, b.tobytes())
        return [] if same else [_path]
    if type(a) is not type(b) or isinstance(a, (Mapping, list, tuple, torch.Tensor, np.ndarray)):
        return [_path]
    if type(a) is float:
        return [] if a.hex() == b.hex() else [_path]
    return [] if a == b else [_path]
