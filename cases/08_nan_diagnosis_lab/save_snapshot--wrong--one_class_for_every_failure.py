# Wrong: does the atomic write right, but turns every failure into one exception class that is at
# once a RuntimeError and an OSError, instead of letting the original exception propagate
# unchanged. The judge matches a raise only against the reference's class when no other class
# the same cell expects is also a base of it, so this gains nothing.
class SnapshotError(RuntimeError, OSError):
    pass


def save_snapshot(path, state):
    path = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except Exception as error:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise SnapshotError(f"could not save {path}: {error}") from error
