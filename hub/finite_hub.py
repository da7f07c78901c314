"""The hub's two classes (hub/jupyterhub_config.py): students' servers in a capped cgroup each, and
PAM logins whose hub groups are the account's OS groups of the courses (nbgrader-ID, formgrade-ID).

CappedSpawner is JupyterHub's LocalProcessSpawner with each server, and every kernel and process it
starts, in a cgroup of its own, made before the server starts: the grading sandbox's own cgroups
(autograder.sandbox.enclosure.StudentCgroup, found by autograder.sandbox.probe: cgroup v2 where
this process's cgroup can delegate memory, pids and cpu, else the v1 hierarchies, as root), with a
memory cap (past it, the kernel's OOM killer kills in that cgroup only: the student's kernel), a
cap on processes and threads, and a CPU quota. Where they cannot be made, the server does not start.
"""
import grp
import os

from jupyterhub.auth import PAMAuthenticator
from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Float, Integer

from autograder.sandbox.enclosure import StudentCgroup
from autograder.sandbox.limits import Limits
from autograder.sandbox.probe import CONTROLLERS, mechanism

COURSE_GROUPS = ("nbgrader-", "formgrade-")


class CappedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner with each student's server in a cgroup capped at ``memory_mb``,
    ``max_procs`` and ``cpus``."""

    memory_mb = Integer(2048, config=True, help="MB of memory for one server and all it starts, together")
    max_procs = Integer(256, config=True, help="processes and threads of one server and all it starts")
    cpus = Float(1.0, config=True, help="CPU cores for one server and all it starts (a CFS quota)")
    cgroup = None

    def make_preexec_fn(self, name):
        drop = super().make_preexec_fn(name)
        procs = self.cgroup.procs_files()

        def preexec():  # in the child, as root, before the uid drop: it and all it starts stay in
            for path in procs:
                with open(path, "w") as handle:
                    handle.write(str(os.getpid()))
            drop()

        return preexec

    async def start(self):
        found = mechanism()
        missing = [c for c in CONTROLLERS if c not in found.bases]
        if missing:
            raise RuntimeError(f"cannot cap {self.user.name}'s server: "
                               + "; ".join(f"{c}: {found.reasons.get(c)}" for c in missing))
        self.cgroup = StudentCgroup(found, Limits(memory_mb=self.memory_mb, max_procs=self.max_procs, cpus=self.cpus))
        self.log.info("%s's server capped at %s MB, %s processes, %s core(s): %s", self.user.name, self.memory_mb,
                      self.max_procs, self.cpus, found.describe())
        try:
            return await super().start()
        except BaseException:
            self.release()
            raise

    async def poll(self):
        status = await super().poll()
        if status is not None and self.cgroup is not None:
            self.release()
        return status

    async def stop(self, now=False):
        await super().stop(now=now)
        self.release()

    def release(self):
        """Kill what the server left in its cgroup (a kernel, a loop it started) and remove it."""
        if self.cgroup is not None:
            kills = self.cgroup.record().get("oom_kills", 0)
            if kills:
                self.log.warning("%s's server hit its memory cap %d time(s)", self.user.name, kills)
            self.cgroup.kill_all()
            self.cgroup.remove()
            self.cgroup = None


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
