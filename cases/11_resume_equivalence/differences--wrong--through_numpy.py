# Wrong: reads a tensor's bytes through .numpy(), which raises TypeError on a bfloat16 tensor
# (NumPy has no bfloat16), so a state holding one cannot be compared at all.
def differences(a, b):
    found = set()

    def join(path, part):
        return f"{path}.{part}" if path else str(part)

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
            if x.dtype != y.dtype or x.shape != y.shape or \
                    x.detach().cpu().numpy().tobytes() != y.detach().cpu().numpy().tobytes():
                found.add(path)
        elif isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
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
