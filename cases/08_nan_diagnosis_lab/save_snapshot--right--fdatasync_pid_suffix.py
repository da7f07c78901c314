# Right, written differently: a temporary name built from the process id and a counter, opened
# with "xb" (never overwrites), os.fdatasync instead of os.fsync, and a success flag in finally.
import itertools

_attempts = itertools.count()


def save_snapshot(path, state):
    target = os.path.abspath(os.fspath(path))
    temp = f"{target}.{os.getpid()}.{next(_attempts)}.partial"
    done = False
    try:
        with open(temp, "xb") as f:
            torch.save(state, f)
            f.flush()
            os.fdatasync(f.fileno())
        os.replace(temp, target)
        done = True
    finally:
        if not done and os.path.exists(temp):
            os.unlink(temp)
