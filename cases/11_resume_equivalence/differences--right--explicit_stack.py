# Right, written differently: an explicit stack instead of recursion; tensors compared through
# the NumPy bytes of their uint8 view (so bfloat16 works too), floats through a float64 array's bytes.
def differences(a, b):
    def raw(t):
        return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()

    result = set()
    stack = [("", a, b)]
    while stack:
        path, x, y = stack.pop()
        prefix = path + "." if path else ""
        if isinstance(x, Mapping) or isinstance(y, Mapping):
            if not (isinstance(x, Mapping) and isinstance(y, Mapping)):
                result.add(path)
                continue
            for key in set(x) ^ set(y):
                result.add(prefix + str(key))
            for key in set(x) & set(y):
                stack.append((prefix + str(key), x[key], y[key]))
        elif isinstance(x, (list, tuple)) or isinstance(y, (list, tuple)):
            if type(x) != type(y) or len(x) != len(y):
                result.add(path)
            else:
                stack.extend((prefix + str(i), u, v) for i, (u, v) in enumerate(zip(x, y)))
        elif isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
            ok = (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.dtype == y.dtype
                  and tuple(x.shape) == tuple(y.shape) and raw(x) == raw(y))
            if not ok:
                result.add(path)
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            ok = (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
                  and x.shape == y.shape and np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes())
            if not ok:
                result.add(path)
        elif type(x) != type(y):
            result.add(path)
        elif type(x) is float:
            if np.array(x, dtype=np.float64).tobytes() != np.array(y, dtype=np.float64).tobytes():
                result.add(path)
        elif x != y:
            result.add(path)
    return sorted(result)
