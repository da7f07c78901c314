# Wrong: flushes Python's buffer but never fsyncs, so after a power cut the renamed file may
# hold nothing: the rename can reach the disk before the data.
def save_snapshot(path, state):
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
        os.replace(temp, path)
    except BaseException:
        os.remove(temp)
        raise
