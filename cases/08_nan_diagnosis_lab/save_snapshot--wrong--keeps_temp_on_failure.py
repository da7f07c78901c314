# Wrong: atomic on success, but a failure leaves the half-written temporary file in the folder.
def save_snapshot(path, state):
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(suffix=".tmp", dir=folder)
    with os.fdopen(fd, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
