"""The hub's two classes (hub/jupyterhub_config.py): students' servers in a capped cgroup each, and
PAM logins whose hub groups are the account's OS groups of the courses (nbgrader-ID, formgrade-ID).

CappedSpawner is JupyterHub's LocalProcessSpawner with each server, and every kernel and process it
starts, in a cgroup of its own, made before the server starts: the grading sandbox's own cgroups
(autograder.sandbox.enclosure.StudentCgroup, found by autograder.sandbox.probe: cgroup v2 where
this process's cgroup can delegate memory, pids and cpu, else the v1 hierarchies, as root), with a
memory cap (past it, the kernel's OOM killer kills in that cgroup only: the student's kernel), a
cap on processes and threads, and a CPU quota. Where they cannot be made, the server does not start.
A file the server or anything it starts writes stops at ``file_mb`` (RLIMIT_FSIZE: Python raises
"File too large"); how much a home holds in all is the file system's quota (README).
"""
import grp
import os
import resource

from jupyterhub import orm
from jupyterhub.auth import PAMAuthenticator
from jupyterhub.spawner import LocalProcessSpawner
from sqlalchemy.orm import object_session
from traitlets import Float, Integer

from autograder.sandbox.enclosure import StudentCgroup
from autograder.sandbox.limits import Limits
from autograder.sandbox.probe import CONTROLLERS, mechanism

COURSE_GROUPS = ("nbgrader-", "formgrade-")


class CappedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner with each student's server in a cgroup capped at ``memory_mb``,
    ``max_procs`` and ``cpus``, and its files at ``file_mb``."""

    memory_mb = Integer(2048, config=True, help="MB of memory for one server and all it starts, together")
    max_procs = Integer(256, config=True, help="processes and threads of one server and all it starts")
    cpus = Float(1.0, config=True, help="CPU cores for one server and all it starts (a CFS quota)")
    file_mb = Integer(1024, config=True, help="MB of the largest file one server or anything it starts writes")
    cgroup = None

    def make_preexec_fn(self, name):
        drop = super().make_preexec_fn(name)
        procs = self.cgroup.procs_files()
        largest = self.file_mb * 2**20

        def preexec():  # in the child, as root, before the uid drop: it and all it starts stay in
            for path in procs:
                with open(path, "w") as handle:
                    handle.write(str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_FSIZE, (largest, largest))
            drop()

        return preexec

    async def start(self):
        found = mechanism()
        missing = [c for c in CONTROLLERS if c not in found.bases]
        if missing:
            raise RuntimeError(f"cannot cap {self.user.name}'s server: "
                               + "; ".join(f"{c}: {found.reasons.get(c)}" for c in missing))
        self.cgroup = StudentCgroup(found, Limits(memory_mb=self.memory_mb, max_procs=self.max_procs, cpus=self.cpus))
        self.log.info("%s's server capped at %s MB, %s processes, %s core(s), files of %s MB: %s", self.user.name,
                      self.memory_mb, self.max_procs, self.cpus, self.file_mb, found.describe())
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


def course_groups(name: str) -> list:
    """The OS groups of the courses (nbgrader-ID, formgrade-ID) account ``name`` is in."""
    return sorted(g.gr_name for g in grp.getgrall() if name in g.gr_mem and g.gr_name.startswith(COURSE_GROUPS))


class CourseGroupsPAM(PAMAuthenticator):
    """PAM login; the account's hub groups are its OS groups of the courses, synced at each login,
    so `make hub-users` (useradd, usermod -aG) enrols a student without touching the hub, and when
    the hub adds an account (at each start, or from the roles), so a grader account that never logs
    in is in its course's groups too."""

    manage_groups = True

    async def add_user(self, user):
        await super().add_user(user)
        user = getattr(user, "orm_user", user)
        db = object_session(user)
        wanted = course_groups(user.name)
        if db is None or sorted(g.name for g in user.groups) == wanted:
            return
        user.groups = [orm.Group.find(db, name) or orm.Group(name=name) for name in wanted]
        db.commit()

    async def authenticate(self, handler, data):
        name = await super().authenticate(handler, data)
        if name is None:
            return None
        name = name["name"] if isinstance(name, dict) else name
        return {"name": name, "groups": course_groups(name)}
