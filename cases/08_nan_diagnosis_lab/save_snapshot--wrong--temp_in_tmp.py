# Wrong: the temporary file is made in the system temp folder, not next to the target. os.replace
# is atomic only within one filesystem; across filesystems it fails (EXDEV).
def save_snapshot(path, state):
    fd, temp = tempfile.mkstemp(suffix=".pt")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
