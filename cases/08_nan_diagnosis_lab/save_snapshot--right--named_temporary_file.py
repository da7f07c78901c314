# Right, written differently: NamedTemporaryFile(delete=False) in the target's folder, pathlib for
# the rename (Path.replace calls os.replace), cleanup with contextlib.suppress.
import contextlib
import pathlib


def save_snapshot(path, state):
    target = pathlib.Path(path).absolute()
    temp = None
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=target.name, suffix=".partial",
                                         delete=False) as f:
            temp = pathlib.Path(f.name)
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        temp.replace(target)
    except BaseException:
        if temp is not None:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        raise
