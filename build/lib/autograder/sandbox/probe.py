"""What this machine offers the sandbox: cgroups to cap each submission (v2 delegated, or v1 as
root), a bubblewrap that can size a tmpfs, a uid drop, a RAM-backed folder for kernel sockets.
Each is probed once per process; :func:`missing_caps` says what cannot be enforced here.
"""
import errno
import os
import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from autograder.sandbox.identity import KEPT_CAPS, UID_RANGE
from autograder.sandbox.limits import MB

CONTROLLERS = ("memory", "pids", "cpu")  # each is a cap: missing_caps lists the ones not available
ACCOUNTING = ("cpuacct",)  # v1 only, optional: CPU time used (v2 has it in cpu.stat)
SOCKET_ROOT = Path("/dev/shm")
LEAF = "finite-grader"  # where a v2 grader moves itself so its cgroup can delegate controllers


def cgroup_root():
    """Where cgroup file systems are looked for (``FINITE_CGROUP_ROOT`` overrides, for tests)."""
    return Path(os.environ.get("FINITE_CGROUP_ROOT", "/sys/fs/cgroup"))


def _unescape(field):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def _mountinfo():
    """(fields before " - ", fields after) of each line of /proc/self/mountinfo; none if unreadable."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    return [(left.split(), right.split()) for left, _, right in (line.partition(" - ") for line in lines)]


def _mounts():
    """[(mount point, mount root, fstype, super options)] of cgroup file systems under cgroup_root()."""
    root, found = cgroup_root(), []
    for fields, tail in _mountinfo():
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        point = Path(_unescape(fields[4]))
        if point == root or root in point.parents:
            found.append((point, _unescape(fields[3]), tail[0], set(tail[2].split(","))))
    return found


def _own_paths():
    """{controller: this process's cgroup path}; key "" is the cgroup v2 path."""
    own = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return own
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    return own


def _join(point, mount_root, path):
    if mount_root != "/" and (path == mount_root or path.startswith(mount_root + "/")):
        path = path[len(mount_root):]
    return point / path.lstrip("/")


def write_value(path, value):
    Path(path).write_text(f"{value}\n")


def read_value(path, default=""):
    try:
        return Path(path).read_text()
    except OSError:
        return default


def counter(path, key):
    """The number after ``key`` in a flat-keyed cgroup file (memory.events, pids.events, ...)."""
    match = re.search(rf"^{re.escape(key)} (\d+)$", read_value(path), re.M)
    return int(match[1]) if match else 0


def _probe(base, check):
    """Create a throw-away child of ``base`` and run ``check(child)``; None when it works, else why."""
    child = base / f"finite-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        child.mkdir()
    except OSError as error:
        return f"cannot create a cgroup in {base} ({error.strerror})"
    try:
        return check(child)
    except OSError as error:
        return f"cannot set limits in {base} ({error.strerror})"
    finally:
        try:
            child.rmdir()
        except OSError:
            pass


V2_CONTROLS = {"memory": ("memory.max", "max"), "pids": ("pids.max", "max"), "cpu": ("cpu.max", "max")}


def _v2_base(point, mount_root, own, controllers=CONTROLLERS):
    """The delegated cgroup v2 folder to make students' cgroups in (with ``controllers``), or (None, why)."""
    base = _join(point, mount_root, own)
    if base.name == LEAF:  # we moved ourselves there earlier (or our parent process did)
        base = base.parent

    def check(child):
        missing = [c for c in controllers if c not in read_value(child / "cgroup.controllers").split()]
        if missing:
            return f"cgroup v2 at {base} does not delegate {', '.join(missing)}"
        for controller in controllers:
            name, value = V2_CONTROLS[controller]
            write_value(child / name, value)
        return None

    why = _probe(base, check)
    if why and "does not delegate" in why:
        why = _v2_delegate(base, controllers) or _probe(base, check)
    return (None, why) if why else (base, None)


def _v2_delegate(base, controllers=CONTROLLERS):
    """Enable ``controllers`` for children of ``base``; moves this process into a leaf first if
    it is the only one in ``base`` (cgroup v2 allows no processes beside delegated children)."""
    absent = [c for c in controllers if c not in read_value(base / "cgroup.controllers").split()]
    if absent:
        return f"cgroup v2 at {base} lacks the {', '.join(absent)} controller(s)"
    wanted = " ".join(f"+{c}" for c in controllers)
    try:
        write_value(base / "cgroup.subtree_control", wanted)
        return None
    except OSError as error:
        if error.errno != errno.EBUSY:
            return f"cgroup v2 at {base} is not delegated to us ({error.strerror})"
    procs = read_value(base / "cgroup.procs").split()
    if procs != [str(os.getpid())]:
        return (f"cgroup v2 at {base} is not delegated to us (other processes share it: run the "
                "grader alone in its own cgroup, e.g. systemd-run --scope -p Delegate=yes)")
    try:
        (base / LEAF).mkdir(exist_ok=True)
        write_value(base / LEAF / "cgroup.procs", os.getpid())
        write_value(base / "cgroup.subtree_control", wanted)
    except OSError as error:
        return f"cgroup v2 at {base} is not delegated to us ({error.strerror})"
    return None


def _v1_base(point, mount_root, own, controller):
    base = _join(point, mount_root, own)
    control = {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpu": "cpu.cfs_quota_us",
               "cpuacct": "cpuacct.usage"}[controller]

    def check(child):
        if not (child / control).exists():
            return f"the cgroup v1 {controller} hierarchy at {point} has no {control}"
        if controller != "cpuacct":  # accounting is only read
            write_value(child / control, (child / control).read_text().strip())
        return None

    why = _probe(base, check)
    return (None, why) if why else (base, None)


@dataclass(frozen=True)
class Mechanism:
    """Where each controller's per-student cgroups are made: {controller: (version, folder)}."""

    bases: dict
    reasons: dict  # {controller: why it is unavailable}

    def describe(self):
        if not self.bases:
            return "none"
        versions = sorted({version for version, _ in self.bases.values()})
        parts = [f"{c} at {folder}" for c, (_, folder) in sorted(self.bases.items())]
        return f"cgroup v{'+'.join(map(str, versions))} ({'; '.join(parts)})"


@lru_cache(maxsize=None)
def mechanism():
    """What this machine offers for per-student cgroups (probed once per process)."""
    mounts, own = _mounts(), _own_paths()
    bases, reasons = {}, {}
    v2 = [m for m in mounts if m[2] == "cgroup2"]
    if v2 and "" in own:
        base, why = _v2_base(v2[0][0], v2[0][1], own[""])
        if base is not None:
            return Mechanism({c: (2, base) for c in CONTROLLERS}, {})
        reasons = {c: why for c in CONTROLLERS}
        base, _ = _v2_base(v2[0][0], v2[0][1], own[""], ("memory", "pids"))  # a v2 without cpu
        if base is not None:
            bases = {c: (2, base) for c in ("memory", "pids")}
            reasons = {"cpu": why}
    for controller in CONTROLLERS + ACCOUNTING:
        if controller in bases:
            continue
        v1 = [m for m in mounts if m[2] == "cgroup" and controller in m[3]]
        if not v1 or controller not in own:
            reasons.setdefault(controller, f"no cgroup hierarchy with the {controller} controller "
                                           f"under {cgroup_root()}")
            continue
        base, why = _v1_base(v1[0][0], v1[0][1], own[controller], controller)
        if base is None:
            reasons[controller] = why
        else:
            bases[controller] = (1, base)
            reasons.pop(controller, None)
    return Mechanism(bases, reasons)


@lru_cache(maxsize=None)
def tmpfs_size_problem():
    """None when bubblewrap can size a tmpfs (``--size``, bubblewrap 0.7.0+), else why not."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return "bubblewrap (bwrap) is not installed"
    def run(*size):
        return subprocess.run([bwrap, "--ro-bind", "/", "/", *size, "--tmpfs", "/tmp", "true"],
                              capture_output=True, text=True, timeout=30)

    try:
        probe = run("--size", str(MB))
        if probe.returncode == 0:
            return None
        plain = run()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap does not run ({error})"
    if plain.returncode != 0:
        return f"bwrap does not run here ({(plain.stderr.strip() or f'exit {plain.returncode}').splitlines()[-1]})"
    version = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip()
    why = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else f"exit {probe.returncode}"
    return f"{version or 'bwrap'} cannot size a tmpfs ({why}; --size needs bubblewrap 0.7.0+, not setuid)"


def socket_root():
    """The RAM-backed host folder for kernels' sockets (so writes there count as memory), or None."""
    for fields, tail in _mountinfo():
        if fields[4:5] == [str(SOCKET_ROOT)] and tail[:1] == ["tmpfs"]:
            return SOCKET_ROOT if os.access(SOCKET_ROOT, os.W_OK | os.X_OK) else None
    return None


@lru_cache(maxsize=None)
def privilege_problem():
    """None when the kernel can run as a uid of its own (or the grader is not root anyway), else why not."""
    if os.geteuid() != 0:
        return None
    bwrap, setpriv = shutil.which("bwrap"), shutil.which("setpriv")
    if not setpriv:
        return "setpriv (util-linux) is not installed"
    if not bwrap:
        return "bubblewrap (bwrap) is not installed"
    uid = UID_RANGE[0] + UID_RANGE[1] - 1
    caps = [arg for cap in KEPT_CAPS for arg in ("--cap-add", cap)]
    probe = [bwrap, "--ro-bind", "/", "/", "--cap-drop", "ALL", *caps, "--", setpriv, f"--reuid={uid}",
             f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
             "--", "/bin/sh", "-c", "id -u"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap with setpriv does not run ({error})"
    if done.returncode != 0 or done.stdout.strip() != str(uid):
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        return f"cannot drop to an unprivileged uid in the sandbox ({why})"
    return None


def runs_unprivileged():
    """True when kernels will run as a uid of their own (the grader is root and can drop)."""
    return os.geteuid() == 0 and privilege_problem() is None


def describe(limits):
    """One line: the caps each submission gets here, and the mechanisms enforcing them."""
    found = mechanism()
    disk = "tmpfs sized by bubblewrap --size" if tmpfs_size_problem() is None else "RLIMIT_FSIZE per file only"
    user = ("a uid of its own, no capabilities" if runs_unprivileged() else
            "ROOT" if os.geteuid() == 0 else f"the grader's uid {os.geteuid()}")
    return (f"caps per submission: {limits.memory_mb} MB in total, {limits.max_procs} processes, "
            f"{limits.cpus:g} CPU core(s), {limits.disk_mb} MB written; cgroups: {found.describe()}; "
            f"disk: {disk}; kernel runs as {user}")


def missing_caps(limits):
    """One line per cap this machine cannot enforce for ``limits`` (empty: all enforced)."""
    found, lines = mechanism(), []
    if "memory" not in found.bases:
        lines.append(f"memory: --memory-mb {limits.memory_mb} holds per process only, not in total: "
                     f"{found.reasons.get('memory')}")
    if "pids" not in found.bases:
        lines.append(f"processes: --max-procs {limits.max_procs} is not enforced: {found.reasons.get('pids')}")
    if "cpu" not in found.bases:
        lines.append(f"cpu: --cpus {limits.cpus:g} is not enforced: {found.reasons.get('cpu')}")
    if privilege_problem():
        lines.append(f"user: the kernel would run as root: {privilege_problem()}")
    if tmpfs_size_problem():
        lines.append(f"disk: --disk-mb {limits.disk_mb} holds per file only (RLIMIT_FSIZE), /tmp is "
                     f"unbounded: {tmpfs_size_problem()}")
    elif socket_root() is None:
        lines.append(f"disk: --disk-mb {limits.disk_mb} holds per file only in the kernel's socket folder: "
                     f"{SOCKET_ROOT} is not a writable tmpfs, so that folder is on disk")
    return lines
