"""One submission's enclosure: a cgroup with caps on its total memory, processes, CPU and bytes
written, enforced by the kernel; its uid and its socket folder.

One submission (its kernel, everything the kernel starts, and the executor process that talks
to the kernel, :mod:`autograder.sandbox.executor`) runs in its own cgroup:

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
  (:class:`autograder.sandbox.identity.Identity`); the cgroups are set up as root before.
* disk: the sandbox's only writable storage is a tmpfs of ``Limits.disk_mb`` on ``/tmp`` (the
  working folder is ``/tmp/work``, so scratch and ``/tmp`` share one cap), plus a tmpfs of the
  same size on ``/dev/shm`` (POSIX shared memory); ``RLIMIT_FSIZE`` is a backstop per file.
  tmpfs pages are RAM: they count toward the memory cap too. The kernel's sockets and
  connection file live in a host folder on ``/dev/shm``, bound into the sandbox so the trusted
  side can reach them; whatever a submission writes there is RAM charged to its cgroup.

Mechanisms, best first: cgroup v2 where this process's cgroup is delegated to us (as under
``systemd-run --scope -p Delegate=yes``), cgroup v1 ``memory``/``pids`` hierarchies where we may
create cgroups (root), else none. :func:`autograder.sandbox.probe.missing_caps` lists what this
machine cannot enforce.
"""
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

from autograder.sandbox.identity import new_identity
from autograder.sandbox.limits import MB
from autograder.sandbox.probe import (counter, mechanism, read_value, runs_unprivileged, socket_root,
                                      tmpfs_size_problem, write_value)
from autograder.sandbox.usage import Usage

CFS_PERIOD_US = 100_000
SANDBOX_DISKS = ("/tmp", "/dev/shm")  # the capped tmpfs mounts inside the sandbox (see bubblewrap.py)
SAMPLE_EVERY = 0.2  # seconds between samples of the sandbox's disk use
EXIT_POLL = 0.005  # seconds between checks that the killed tasks of a cgroup have exited
REMOVE_WAIT = 5  # seconds a cgroup's removal waits for them


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
                    write_value(folder / "cpu.cfs_period_us", CFS_PERIOD_US)
                    write_value(folder / "cpu.cfs_quota_us", quota)
                else:
                    write_value(folder / "cpu.max", f"{quota} {CFS_PERIOD_US}")
                continue
            if controller == "memory" and version == 1:
                write_value(folder / "memory.limit_in_bytes", total)
                if (folder / "memory.memsw.limit_in_bytes").exists():
                    write_value(folder / "memory.memsw.limit_in_bytes", total)
            elif controller == "memory":
                write_value(folder / "memory.max", total)
                if (folder / "memory.swap.max").exists():
                    write_value(folder / "memory.swap.max", 0)
            else:
                write_value(folder / "pids.max", limits.max_procs)

    def procs_files(self):
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def pids(self):
        return {int(p) for folder in self.folders for p in read_value(folder / "cgroup.procs").split()}

    def record(self):
        """{oom_kills, memory_peak_mb, procs_refused} as the kernel counted them."""
        found = {}
        version, folder = self.controllers.get("memory", (0, None))
        if version == 1:
            found["oom_kills"] = counter(folder / "memory.oom_control", "oom_kill")
            peak = read_value(folder / "memory.max_usage_in_bytes", "0").strip()
            found["memory_peak_mb"] = round(int(peak or 0) / MB, 1)
        elif version == 2:
            found["oom_kills"] = counter(folder / "memory.events", "oom_kill")
            peak = read_value(folder / "memory.peak", "0").strip()
            found["memory_peak_mb"] = round(int(peak or 0) / MB, 1)
        if "pids" in self.controllers:
            found["procs_refused"] = counter(self.controllers["pids"][1] / "pids.events", "max")
        version, folder = self.controllers.get("cpu", (0, None))
        if folder is not None:
            found["cpu_throttled"] = counter(folder / "cpu.stat", "nr_throttled")
        if version == 2:
            found["cpu_seconds"] = round(counter(folder / "cpu.stat", "usage_usec") / 1e6, 3)
        elif "cpuacct" in self.controllers:
            usage = read_value(self.controllers["cpuacct"][1] / "cpuacct.usage", "0").strip()
            found["cpu_seconds"] = round(int(usage or 0) / 1e9, 3)
        return found

    def kill_all(self, deadline=5.0):
        """SIGKILL everything left in the cgroup, until it is empty (or ``deadline`` seconds)."""
        for folder in self.folders:
            if (folder / "cgroup.kill").exists():
                try:
                    write_value(folder / "cgroup.kill", 1)
                except OSError:
                    pass
        end = time.monotonic() + deadline
        while (left := self.pids()) and time.monotonic() < end:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(EXIT_POLL)
        return not self.pids()

    def remove(self):
        """Remove the cgroup(s). rmdir fails with EBUSY while a killed task is still exiting, or
        when one joined after the kill (a kernel server's child that was entering): those are
        killed too."""
        for folder in self.folders:
            for attempt in range(round(REMOVE_WAIT / EXIT_POLL)):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if attempt % 100 == 99:
                        self.kill_all(deadline=1.0)
                    time.sleep(EXIT_POLL)


class Enclosure:
    """The caps around one submission's sandbox: use as a context manager around its execution.

    The executor enters the student's cgroup (``cgroup.procs_files()``) before it starts bwrap;
    ``started(pid)`` (bwrap's pid) starts sampling the sandbox's disk use; leaving the
    ``with`` kills what is left, reads the counters into ``usage`` and removes the cgroup and
    the socket folder.
    """

    def __init__(self, limits, scratch):
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
        inside = read_value(f"/proc/{self._pid}/task/{self._pid}/children").split()
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
