"""Per-student caps on total memory, processes, CPU and bytes written, enforced by the kernel.

One submission (its kernel, everything the kernel starts, and the executor process that talks
to the kernel, :mod:`autograder.sandbox.client`) runs in its own cgroup:

* memory: the cgroup's limit is ``Limits.memory_mb`` for everything together; going over it
  wakes the OOM killer inside that cgroup only, which the cgroup records (``oom_kill``).
  ``RLIMIT_DATA`` at the same value remains as a per-process backstop: one allocation larger
  than the total fails with ``MemoryError`` and the kernel survives.
* processes: ``pids.max`` = ``Limits.max_procs`` counts processes and threads; a refused fork
  is recorded (``pids.events``: ``max``).
* CPU: a CFS quota of ``Limits.cpus`` cores for everything together (v2 ``cpu.max``, v1
  ``cpu.cfs_quota_us``/``cpu.cfs_period_us``): however many processes a submission starts, it
  gets at most that share of the machine, so an honest neighbour keeps its time. The CPU time it
  used and how often it was throttled are recorded (v2 ``cpu.stat``; v1 ``cpuacct.usage`` where
  that hierarchy exists, ``cpu.stat``).
* user: where the grader is root, the kernel runs as a uid of its own with no capabilities
  (:class:`autograder.sandbox.bubblewrap.Identity`); the cgroups are set up as root before.
* disk: the sandbox's only writable storage is a tmpfs of ``Limits.disk_mb`` on ``/tmp`` (the
  working folder is ``/tmp/work``, so scratch and ``/tmp`` share one cap), plus a tmpfs of the
  same size on ``/dev/shm`` (POSIX shared memory); ``RLIMIT_FSIZE`` is a backstop per file.
  tmpfs pages are RAM: they count toward the memory cap too. The kernel's sockets and
  connection file live in a host folder on ``/dev/shm``, bound into the sandbox so the trusted
  side can reach them; whatever a submission writes there is RAM charged to its cgroup.

Mechanisms, best first: cgroup v2 where this process's cgroup is delegated to us (as under
``systemd-run --scope -p Delegate=yes``), cgroup v1 ``memory``/``pids`` hierarchies where we may
create cgroups (root), else none. :func:`missing_caps` lists what this machine cannot enforce.
"""
import errno
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from autograder.statuses import Status

MB = 1024 * 1024
MEMORY_ERRORS = ("MemoryError", "can't allocate memory", "std::bad_alloc")
DISK_ERRORS = ("No space left on device", "File too large", "Disk quota exceeded")
CONTROLLERS = ("memory", "pids", "cpu")  # each is a cap: missing_caps lists the ones not available
ACCOUNTING = ("cpuacct",)  # v1 only, optional: CPU time used (v2 has it in cpu.stat)
CFS_PERIOD_US = 100_000
SOCKET_ROOT = Path("/dev/shm")
SANDBOX_DISKS = ("/tmp", "/dev/shm")  # the capped tmpfs mounts inside the sandbox (see sandbox.py)
LEAF = "finite-grader"  # where a v2 grader moves itself so its cgroup can delegate controllers
SAMPLE_EVERY = 0.2  # seconds between samples of the sandbox's disk use


@dataclass(frozen=True)
class Usage:
    """What the caps recorded for one submission (zeros when nothing could be recorded)."""

    mechanism: str = "none"
    oom_kills: int = 0  # processes the memory cap's OOM killer stopped
    memory_peak_mb: float = 0.0  # peak total as the cgroup saw it (page cache included)
    procs_refused: int = 0  # forks / thread starts refused by the process cap
    disk_peak_mb: float = 0.0  # most bytes seen on the sandbox's tmpfs mounts together
    disk_full: bool = False  # a tmpfs was seen (nearly) full
    cpu_seconds: float = 0.0  # CPU time of everything the submission ran (0 where not accounted)
    cpu_throttled: int = 0  # CFS periods in which the CPU cap held it back
    uid: int = -1  # the uid its kernel ran as (-1: the grader's own)
    traffic: str = ""  # the traffic cap the kernel passed (autograder.sandbox.traffic.Meter.over), or ""


def limit_outcome(usage, limits, errors=""):
    """``(Status.RESOURCE_LIMIT, note)`` when a cap stopped the submission, else None.

    ``usage``: the :class:`Usage` that :func:`autograder.sandbox.execute.execute` returns;
    ``errors``: the notebook's error text (:func:`notebook_errors`), for what only shows there
    (a single allocation over the total refused by ``RLIMIT_DATA``, a full disk).
    """
    if usage.oom_kills or any(marker in errors for marker in MEMORY_ERRORS):
        return Status.RESOURCE_LIMIT, f"used more than {limits.memory_mb} MB in total"
    if usage.procs_refused:
        return Status.RESOURCE_LIMIT, f"started more than {limits.max_procs} processes"
    if usage.disk_full or any(marker in errors for marker in DISK_ERRORS):
        return Status.RESOURCE_LIMIT, f"wrote more than {limits.disk_mb} MB"
    if usage.traffic:
        return Status.RESOURCE_LIMIT, f"{usage.traffic} (the cap is {limits.traffic_mb} MB per channel)"
    return None


def notebook_errors(nb):
    """Every error output of ``nb`` as ``ename: evalue`` lines."""
    return "\n".join(f"{out.get('ename', '')}: {out.get('evalue', '')}"
                     for cell in nb.cells if cell.cell_type == "code"
                     for out in cell.get("outputs", []) if out.get("output_type") == "error")


# ---------------------------------------------------------------- what this machine offers

def cgroup_root():
    """Where cgroup file systems are looked for (``FINITE_CGROUP_ROOT`` overrides, for tests)."""
    return Path(os.environ.get("FINITE_CGROUP_ROOT", "/sys/fs/cgroup"))


def _unescape(field):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def _mounts():
    """[(mount point, mount root, fstype, super options)] of cgroup file systems under cgroup_root()."""
    root, found = cgroup_root(), []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
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


def _write(path, value):
    Path(path).write_text(f"{value}\n")


def _read(path, default=""):
    try:
        return Path(path).read_text()
    except OSError:
        return default


def _counter(path, key):
    """The number after ``key`` in a flat-keyed cgroup file (memory.events, pids.events, ...)."""
    match = re.search(rf"^{re.escape(key)} (\d+)$", _read(path), re.M)
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
        missing = [c for c in controllers if c not in _read(child / "cgroup.controllers").split()]
        if missing:
            return f"cgroup v2 at {base} does not delegate {', '.join(missing)}"
        for controller in controllers:
            name, value = V2_CONTROLS[controller]
            _write(child / name, value)
        return None

    why = _probe(base, check)
    if why and "does not delegate" in why:
        why = _v2_delegate(base, controllers) or _probe(base, check)
    return (None, why) if why else (base, None)


def _v2_delegate(base, controllers=CONTROLLERS):
    """Enable ``controllers`` for children of ``base``; moves this process into a leaf first if
    it is the only one in ``base`` (cgroup v2 allows no processes beside delegated children)."""
    absent = [c for c in controllers if c not in _read(base / "cgroup.controllers").split()]
    if absent:
        return f"cgroup v2 at {base} lacks the {', '.join(absent)} controller(s)"
    wanted = " ".join(f"+{c}" for c in controllers)
    try:
        _write(base / "cgroup.subtree_control", wanted)
        return None
    except OSError as error:
        if error.errno != errno.EBUSY:
            return f"cgroup v2 at {base} is not delegated to us ({error.strerror})"
    procs = _read(base / "cgroup.procs").split()
    if procs != [str(os.getpid())]:
        return (f"cgroup v2 at {base} is not delegated to us (other processes share it: run the "
                "grader alone in its own cgroup, e.g. systemd-run --scope -p Delegate=yes)")
    try:
        (base / LEAF).mkdir(exist_ok=True)
        _write(base / LEAF / "cgroup.procs", os.getpid())
        _write(base / "cgroup.subtree_control", wanted)
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
            _write(child / control, (child / control).read_text().strip())
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
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        if left.split()[4:5] == [str(SOCKET_ROOT)] and right.split()[:1] == ["tmpfs"]:
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
    from autograder.sandbox.bubblewrap import KEPT_CAPS, UID_RANGE

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


# ---------------------------------------------------------------- one student's enclosure

class StudentCgroup:
    """One submission's cgroup(s): one folder per hierarchy (v1: memory and pids; v2: one)."""

    def __init__(self, found, limits):
        self.name = f"finite-{os.getpid()}-{secrets.token_hex(4)}"
        self.controllers = {c: (version, base / self.name) for c, (version, base) in found.bases.items()}
        self.folders = sorted({folder for _, folder in self.controllers.values()})
        created = []
        try:
            for folder in self.folders:
                folder.mkdir()
                created.append(folder)
            self._limit(limits)
        except OSError:
            for folder in reversed(created):
                folder.rmdir()
            raise

    def _limit(self, limits):
        total = limits.memory_mb * MB
        quota = max(1000, round(limits.cpus * CFS_PERIOD_US))
        for controller, (version, folder) in self.controllers.items():
            if controller == "cpuacct":
                continue
            if controller == "cpu":
                if version == 1:
                    _write(folder / "cpu.cfs_period_us", CFS_PERIOD_US)
                    _write(folder / "cpu.cfs_quota_us", quota)
                else:
                    _write(folder / "cpu.max", f"{quota} {CFS_PERIOD_US}")
                continue
            if controller == "memory" and version == 1:
                _write(folder / "memory.limit_in_bytes", total)
                if (folder / "memory.memsw.limit_in_bytes").exists():
                    _write(folder / "memory.memsw.limit_in_bytes", total)
            elif controller == "memory":
                _write(folder / "memory.max", total)
                if (folder / "memory.swap.max").exists():
                    _write(folder / "memory.swap.max", 0)
            else:
                _write(folder / "pids.max", limits.max_procs)

    def procs_files(self):
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def pids(self):
        return {int(p) for folder in self.folders for p in _read(folder / "cgroup.procs").split()}

    def record(self):
        """{oom_kills, memory_peak_mb, procs_refused} as the kernel counted them."""
        found = {}
        version, folder = self.controllers.get("memory", (0, None))
        if version == 1:
            found["oom_kills"] = _counter(folder / "memory.oom_control", "oom_kill")
            peak = _read(folder / "memory.max_usage_in_bytes", "0").strip()
            found["memory_peak_mb"] = round(int(peak or 0) / MB, 1)
        elif version == 2:
            found["oom_kills"] = _counter(folder / "memory.events", "oom_kill")
            peak = _read(folder / "memory.peak", "0").strip()
            found["memory_peak_mb"] = round(int(peak or 0) / MB, 1)
        if "pids" in self.controllers:
            found["procs_refused"] = _counter(self.controllers["pids"][1] / "pids.events", "max")
        version, folder = self.controllers.get("cpu", (0, None))
        if folder is not None:
            found["cpu_throttled"] = _counter(folder / "cpu.stat", "nr_throttled")
        if version == 2:
            found["cpu_seconds"] = round(_counter(folder / "cpu.stat", "usage_usec") / 1e6, 3)
        elif "cpuacct" in self.controllers:
            usage = _read(self.controllers["cpuacct"][1] / "cpuacct.usage", "0").strip()
            found["cpu_seconds"] = round(int(usage or 0) / 1e9, 3)
        return found

    def kill_all(self, deadline=5.0):
        """SIGKILL everything left in the cgroup, until it is empty (or ``deadline`` seconds)."""
        for folder in self.folders:
            if (folder / "cgroup.kill").exists():
                try:
                    _write(folder / "cgroup.kill", 1)
                except OSError:
                    pass
        end = time.monotonic() + deadline
        while (left := self.pids()) and time.monotonic() < end:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)
        return not self.pids()

    def remove(self):
        for folder in self.folders:
            for _ in range(50):  # rmdir fails with EBUSY while a killed task is still exiting
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)


class Enclosure:
    """The caps around one submission's sandbox: use as a context manager around its execution.

    The executor enters the student's cgroup (``cgroup.procs_files()``) before it starts bwrap;
    ``started(pid)`` (bwrap's pid) starts sampling the sandbox's disk use; leaving the
    ``with`` kills what is left, reads the counters into ``usage`` and removes the cgroup and
    the socket folder.
    """

    def __init__(self, limits, scratch):
        from autograder.sandbox.bubblewrap import new_identity

        self.limits = limits
        found = mechanism()
        self.sized = tmpfs_size_problem() is None
        # folder/sockets: the kernel's (its uid's) connection file and sockets; folder/etc: its passwd
        self.folder = Path(tempfile.mkdtemp(prefix="finite-kernel-", dir=socket_root() or scratch))
        self.sockets = self.folder / "sockets"
        try:
            self.sockets.mkdir(mode=0o700)
            self.identity = new_identity(self.folder) if runs_unprivileged() else None
            if self.identity is not None:
                os.chown(self.sockets, self.identity.uid, self.identity.gid)
            self.cgroup = StudentCgroup(found, limits) if found.bases else None
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.mechanism = found.describe()
        self.usage = Usage(mechanism=self.mechanism)
        self._pid = None
        self._disk_peak, self._disk_full = 0, False
        self.traffic = ""
        self._stop = threading.Event()
        self._sampler = None

    def __getstate__(self):
        """What the executor process needs (it runs the kernel and samples the disk there)."""
        state = dict(self.__dict__)
        state.pop("_stop"), state.pop("_sampler")
        return state

    def __setstate__(self, state):
        self.__dict__.update(state, _stop=threading.Event(), _sampler=None)

    def stop_sampling(self):
        """Stop the disk sampler; (peak bytes, seen full) so far."""
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join(timeout=2)
        return self._disk_peak, self._disk_full

    def report(self, disk_peak, disk_full, traffic):
        """What the executor process saw (its disk samples, a traffic cap passed), for ``usage``."""
        self._disk_peak, self._disk_full, self.traffic = max(self._disk_peak, disk_peak), disk_full, traffic

    def started(self, pid):
        self._pid = pid
        if self.sized:
            self._sampler = threading.Thread(target=self._sample_loop, daemon=True, name="finite-disk")
            self._sampler.start()

    def _sample_loop(self):
        while not self._stop.wait(SAMPLE_EVERY):
            self.sample()

    def sample(self):
        """Record the sandbox's current disk use (its tmpfs mounts, seen through /proc)."""
        if not self.sized or self._pid is None:
            return
        size = self.limits.disk_mb * MB
        # bwrap's child is the sandbox's init; any process in the cgroup but bwrap will do too.
        inside = _read(f"/proc/{self._pid}/task/{self._pid}/children").split()
        inside += [str(p) for p in (self.cgroup.pids() if self.cgroup else ()) if p != self._pid]
        for pid in inside:
            seen = []
            for mount in SANDBOX_DISKS:
                try:
                    fs = os.statvfs(f"/proc/{pid}/root{mount}")
                except OSError:
                    continue
                if fs.f_blocks * fs.f_frsize == size:  # else not (yet) the sandbox's own tmpfs
                    seen.append(fs)
            if seen:
                used = sum((fs.f_blocks - fs.f_bfree) * fs.f_frsize for fs in seen)
                self._disk_peak = max(self._disk_peak, used)
                self._disk_full |= any(fs.f_bfree * fs.f_frsize < min(MB, size // 64) for fs in seen)
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_sampling()
        recorded = {}
        try:
            if self.cgroup is not None:
                self.cgroup.kill_all()
                recorded = self.cgroup.record()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.cgroup is not None:
                self.cgroup.remove()
        self.usage = Usage(mechanism=self.mechanism, disk_peak_mb=round(self._disk_peak / MB, 1),
                           disk_full=self._disk_full, uid=self.identity.uid if self.identity else -1,
                           traffic=self.traffic, **recorded)
        return False
