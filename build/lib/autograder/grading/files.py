"""Files the trusted side writes (whole or not at all) and the digest it knows a submission by."""
import hashlib
import os
import tempfile
from pathlib import Path


def write_atomic(path, data):
    """Write bytes or text to ``path`` through a temp file in the same folder and os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sha256(path) -> str:
    """The hex SHA-256 of the file at ``path`` ("" for no path)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
