# Wrong: compares NumPy arrays by dtype and bytes only, so an array of shape (8,) equals the
# same values reshaped to (2, 4); tensors are compared by dtype, shape and bytes, as asked.
def differences(a, b):
    found = set()

    def join(path, part):
        return f"{path}.{part}" if path else str(part)

    def same(x, y):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            return x.dtype == y.dtype and x.shape == y.shape and torch.equal(
                x.detach().contiguous().reshape(-1).view(torch.uint8),
                y.detach().contiguous().reshape(-1).view(torch.uint8))
        if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            return x.dtype == y.dtype and x.tobytes() == y.tobytes()
        if type(x) is not type(y) or isinstance(x, (torch.Tensor, np.ndarray)):
            return False
        if isinstance(x, float):
            return struct.pack("<d", x) == struct.pack("<d", y)
        return x == y

    def walk(x, y, path):
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            for key in x:
                if key in y:
                    walk(x[key], y[key], join(path, key))
                else:
                    found.add(join(path, key))
            found.update(join(path, key) for key in y if key not in x)
        elif isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            if type(x) is not type(y) or len(x) != len(y):
                found.add(path)
            else:
                for i, (u, v) in enumerate(zip(x, y)):
                    walk(u, v, join(path, i))
        elif isinstance(x, (Mapping, list, tuple)) or isinstance(y, (Mapping, list, tuple)):
            found.add(path)
        elif not same(x, y):
            found.add(path)

    walk(a, b, "")
    return sorted(found)
