"""Who a submission's kernel runs as: a uid of its own with no host account, and how it drops to it."""
import grp
import pwd
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox import SandboxError

UID_RANGE = (1 << 30, 1 << 24)  # (first, count): uids the kernels run as, with no host account
SANDBOX_USER = "learner"
KEPT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")  # for setpriv only; it drops them
WORKDIR = "/tmp/work"  # the kernel's home and working folder inside the sandbox, on the capped /tmp


@dataclass(frozen=True)
class Identity:
    """Who one sandbox's kernel runs as: ``uid``/``gid`` (no host account; two sandboxes that
    happen to share one still cannot see each other: separate PID, IPC, network namespaces and
    mounts), and ``etc``, a root-owned folder with the ``passwd`` and ``group`` the sandbox shows."""

    uid: int
    gid: int
    etc: Path


def new_identity(folder) -> Identity:
    """A fresh uid from UID_RANGE that no host account uses, and its passwd/group under ``folder``."""
    first, count = UID_RANGE
    while True:
        uid = first + secrets.randbelow(count)
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue
        except KeyError:
            break
    etc = Path(folder) / "etc"
    etc.mkdir(mode=0o755)
    (etc / "passwd").write_text(f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
                                f"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                                f"{SANDBOX_USER}:x:{uid}:{uid}:{SANDBOX_USER}:{WORKDIR}:/bin/sh\n")
    (etc / "group").write_text(f"root:x:0:\nnogroup:x:65534:\n{SANDBOX_USER}:x:{uid}:\n")
    for name in ("passwd", "group"):
        (etc / name).chmod(0o644)
    return Identity(uid, uid, etc)


def drop_to(identity):
    """argv prefix that runs the rest as ``identity``, for good (inside the sandbox)."""
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise SandboxError("setpriv (util-linux) is required to run the kernel unprivileged")
    return [setpriv, f"--reuid={identity.uid}", f"--regid={identity.gid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
