"""The hub's two classes (hub/jupyterhub_config.py): students' servers in a capped cgroup each, and
PAM logins whose hub groups are the account's OS groups of the courses (nbgrader-ID, formgrade-ID).

CappedSpawner is JupyterHub's LocalProcessSpawner, with each server (and every kernel and process it
starts) in a cgroup of its own, made before the server starts: a memory cap (the kernel that goes
past it is killed by the kernel's OOM killer, in that cgroup only) and a CPU quota. cgroup v2 where
its memory and cpu controllers can be delegated here, else the v1 memory and cpu hierarchies (as
root). With neither, the hub refuses to start a server, unless the caps are set to 0.
"""
import grp
import os
import signal
import time
from pathlib import Path

from jupyterhub.auth import PAMAuthenticator
from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Float, Integer, Unicode

COURSE_GROUPS = ("nbgrader-", "formgrade-")
PERIOD_US = 100_000


def _own_paths():
    """{controller: this process's cgroup path}; "" is the v2 path."""
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    return own


def _mounts():
    """{fstype or v1 controller: (mount point, mount root)} of the cgroup file systems."""
    found = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        entry = (Path(fields[4]), fields[3])
        if tail[0] == "cgroup2":
            found.setdefault("cgroup2", entry)
        for option in tail[2].split(","):
            if tail[0] == "cgroup" and option in ("memory", "cpu"):
                found.setdefault(option, entry)
    return found


def _join(point, mount_root, path):
    if mount_root != "/" and (path == mount_root or path.startswith(mount_root + "/")):
        path = path[len(mount_root):]
    return point / path.lstrip("/")


def cgroup_folders(leaf: str):
    """(version, [folders to make for ``leaf``]) or (None, why not): one v2 folder, or v1 memory and cpu."""
    mounts, own = _mounts(), _own_paths()
    if "cgroup2" in mounts and "" in own:
        base = _join(*mounts["cgroup2"], own[""]) / "finite-hub"
        try:
            base.mkdir(exist_ok=True)
            available = (base.parent / "cgroup.controllers").read_text().split()
            if {"memory", "cpu"} <= set(available):
                for folder in (base.parent, base):
                    (folder / "cgroup.subtree_control").write_text("+memory +cpu\n")
                return 2, [base / leaf]
        except OSError:
            pass
    if "memory" in mounts and "cpu" in mounts and "memory" in own and "cpu" in own:
        return 1, [_join(*mounts[c], own[c]) / "finite-hub" / leaf for c in ("memory", "cpu")]
    return None, "no cgroup v2 with memory and cpu to delegate here, and no cgroup v1 memory and cpu hierarchies"


def set_caps(version, folders, memory_mb, cpus):
    """Make ``folders`` and write the caps; raise OSError when the machine refuses."""
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    memory, quota = memory_mb * 1024 * 1024, int(cpus * PERIOD_US)
    if version == 2:
        (folders[0] / "memory.max").write_text(f"{memory}\n")
        (folders[0] / "memory.swap.max").exists() and (folders[0] / "memory.swap.max").write_text("0\n")
        (folders[0] / "cpu.max").write_text(f"{quota} {PERIOD_US}\n")
        return
    memory_folder, cpu_folder = folders
    (memory_folder / "memory.limit_in_bytes").write_text(f"{memory}\n")
    swap = memory_folder / "memory.memsw.limit_in_bytes"
    if swap.exists():
        swap.write_text(f"{memory}\n")
    (cpu_folder / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
    (cpu_folder / "cpu.cfs_quota_us").write_text(f"{quota}\n")


def remove(folders):
    """Kill what is left in ``folders`` (a kernel the server left behind) and remove them."""
    for folder in folders:
        for _ in range(50):
            try:
                pids = (folder / "cgroup.procs").read_text().split()
            except OSError:
                break
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)


class CappedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner with each student's server in a cgroup capped at ``memory_mb`` and ``cpus``."""

    memory_mb = Integer(2048, config=True, help="memory cap of one server and its kernels, MB (0: none)")
    cpus = Float(1.0, config=True, help="CPU cap of one server and its kernels, cores (0: none)")
    cgroup_prefix = Unicode("finite", config=True, help="this hub's name in the cgroup folders' names")
    _capped = ()

    def _folders(self):
        version, folders = cgroup_folders(f"{self.cgroup_prefix}-{self.user.name}")
        if version is None:
            raise RuntimeError(f"cannot cap {self.user.name}'s server: {folders}")
        return version, folders

    def make_preexec_fn(self, name):
        drop = super().make_preexec_fn(name)
        if not (self.memory_mb or self.cpus):
            return drop
        procs = [str(folder / "cgroup.procs") for folder in self._capped]

        def preexec():
            for path in procs:  # as root, before the uid drop: the server and all it starts stay in
                with open(path, "w") as handle:
                    handle.write(str(os.getpid()))
            drop()

        return preexec

    async def start(self):
        self._capped = []
        if self.memory_mb or self.cpus:
            version, folders = self._folders()
            remove(folders)  # a server of an earlier hub run, killed
            set_caps(version, folders, self.memory_mb or 1 << 40, self.cpus or 1024)
            self._capped = folders
            self.log.info("%s's server capped at %s MB and %s core(s) (cgroup v%s: %s)", self.user.name,
                          self.memory_mb, self.cpus, version, ", ".join(map(str, folders)))
        return await super().start()

    async def stop(self, now=False):
        await super().stop(now=now)
        if self.memory_mb or self.cpus:
            version, folders = cgroup_folders(f"{self.cgroup_prefix}-{self.user.name}")
            remove(folders if version else self._capped)


class CourseGroupsPAM(PAMAuthenticator):
    """PAM login; the account's hub groups are its OS groups of the courses, synced at each login,
    so `make hub-users` (useradd, usermod -aG) enrols a student without touching the hub."""

    manage_groups = True

    async def authenticate(self, handler, data):
        name = await super().authenticate(handler, data)
        if name is None:
            return None
        name = name["name"] if isinstance(name, dict) else name
        groups = sorted(g.gr_name for g in grp.getgrall() if name in g.gr_mem and g.gr_name.startswith(COURSE_GROUPS))
        return {"name": name, "groups": groups}
