# Wrong: compares the shape and the bytes of tensors and arrays but not their dtype, so a
# float32 tensor equals the int32 tensor with the same bytes (and uint32 equals int32 in NumPy).
def differences(a, b):
    found = set()

    def join(path, part):
        return f"{path}.{part}" if path else str(part)

    def raw(t):
        return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8)

    def walk(x, y, path):
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            for key in set(x) | set(y):
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
            if x.shape != y.shape or not torch.equal(raw(x), raw(y)):
                found.add(path)
        elif isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                found.add(path)
        elif type(x) is not type(y):
            found.add(path)
        elif isinstance(x, float):
            if struct.pack("<d", x) != struct.pack("<d", y):
                found.add(path)
        elif x != y:
            found.add(path)

    walk(a, b, "")
    return sorted(found)
