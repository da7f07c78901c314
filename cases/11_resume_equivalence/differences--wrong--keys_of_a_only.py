# Wrong: walks the keys of `a` only, so a key that only `b` has is never reported.
def differences(a, b):
    found = []

    def bits(t):
        return t.detach().contiguous().reshape(-1).view(torch.uint8)

    def walk(x, y, path):
        if isinstance(x, Mapping):
            if not isinstance(y, Mapping):
                found.append(path)
                return
            for key in x:
                sub = f"{path}.{key}" if path else str(key)
                if key not in y:
                    found.append(sub)
                else:
                    walk(x[key], y[key], sub)
        elif isinstance(x, (list, tuple)):
            if type(x) is not type(y) or len(x) != len(y):
                found.append(path)
            else:
                for i in range(len(x)):
                    walk(x[i], y[i], f"{path}.{i}" if path else str(i))
        elif isinstance(x, torch.Tensor):
            if not (isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.shape == y.shape
                    and torch.equal(bits(x), bits(y))):
                found.append(path)
        elif isinstance(x, np.ndarray):
            if not (isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape
                    and x.tobytes() == y.tobytes()):
                found.append(path)
        elif type(x) is not type(y):
            found.append(path)
        elif isinstance(x, float):
            if struct.pack("<d", x) != struct.pack("<d", y):
                found.append(path)
        elif x != y:
            found.append(path)

    walk(a, b, "")
    return sorted(set(found))
