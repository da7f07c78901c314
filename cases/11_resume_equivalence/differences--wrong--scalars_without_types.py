# Wrong: compares plain scalars with == alone, so 1 and 1.0, or 0 and False, count as equal
# (tensors, arrays and floats are compared by their bits, as asked).
def differences(a, b):
    found = set()

    def join(path, part):
        return f"{path}.{part}" if path else str(part)

    def walk(x, y, path):
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            for key in list(x) + [k for k in y if k not in x]:
                if key in x and key in y:
                    walk(x[key], y[key], join(path, key))
                else:
                    found.add(join(path, key))
        elif isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            if type(x) is not type(y) or len(x) != len(y):
                found.add(path)
            else:
                for i, (u, v) in enumerate(zip(x, y)):
                    walk(u, v, join(path, i))
        elif isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            same = (x.dtype == y.dtype and x.shape == y.shape and
                    torch.equal(x.reshape(-1).view(torch.uint8), y.reshape(-1).view(torch.uint8)))
            if not same:
                found.add(path)
        elif isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                found.add(path)
        elif isinstance(x, float) and isinstance(y, float):
            if struct.pack("<d", x) != struct.pack("<d", y):
                found.add(path)
        elif isinstance(x, (Mapping, list, tuple, torch.Tensor, np.ndarray)) or \
                isinstance(y, (Mapping, list, tuple, torch.Tensor, np.ndarray)):
            found.add(path)
        elif x != y:
            found.add(path)

    walk(a, b, "")
    return sorted(found)
