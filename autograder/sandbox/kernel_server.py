"""The kernel server: a kernel process that has imported torch, numpy, IPython and ipykernel (with
its debugger), and the heavier modules a notebook uses once a request asks for them
(:func:`prepare`), and forks one kernel per submission into that submission's sandbox.

Served by :mod:`autograder.sandbox.forkserver` (root only: joining namespaces needs it), started
with exactly the environment a sandboxed kernel gets. Per submission the executor first starts the
sandbox as before — bubblewrap builds its namespaces, mounts, sized tmpfs and drops to the
submission's uid — but with a placeholder in place of the kernel, which marks the sandbox ready and
sleeps. Then it asks this server for a kernel (:func:`child`), which, before it reads a byte of
the submission:

1. enters the submission's cgroup (its memory, processes and CPU count there from then on);
2. joins the sandbox's PID namespace and forks the kernel, which joins its cgroup, IPC, network,
   UTS and mount namespaces (its root and working folder become the sandbox's);
3. drops for good what ``setpriv`` drops: capabilities (bounding, ambient, inheritable), groups,
   root (to the submission's uid), with ``no_new_privs``, a new session, ``prlimit``'s limits;
4. forgets the server: every inherited file descriptor closed, the environment and ``sys.path`` a
   fresh kernel's but for the working folder (never on it: what the notebook writes is not
   importable), import caches cleared, random generators reseeded;
5. runs ipykernel as ``python -m ipykernel_launcher`` would, each cell's text transformed once
   (:class:`LastCellTransforms`).

When the kernel ends, the first child kills the sandbox, so the executor sees the kernel die.
What the kernels share is the server's memory as it was after importing those modules (copy on
write: a kernel's writes are its own); the server never runs a line of any submission.
"""
import ctypes
import importlib
import os
import random
import resource
import select
import signal
import sys
import time

import IPython  # noqa: F401  (imported for the kernels that fork from this server)
import IPython.core.completerlib  # noqa: F401  (these, sqlite3, pdb, tornado's asyncio loop: what a
import IPython.core.debugger  # noqa: F401  kernel imports as it starts and runs a graded notebook;
import IPython.core.logger  # noqa: F401  stack_data and pygments format tracebacks: 30 ms a kernel)
import IPython.core.magics.extension  # noqa: F401
import IPython.core.oinspect  # noqa: F401
import IPython.extensions.storemagic  # noqa: F401
import ipykernel.ipkernel  # noqa: F401
import ipykernel.kernelapp  # noqa: F401
import numpy
import numpy.random
import pdb  # noqa: F401
import pygments.formatters.html  # noqa: F401
import pygments.formatters.terminal256  # noqa: F401
import pygments.lexers.python  # noqa: F401
import sqlite3  # noqa: F401
import stack_data  # noqa: F401
import tomllib  # noqa: F401  (fplab reads its pyproject.toml with it)
import tornado.platform.asyncio  # noqa: F401
from IPython.core.inputtransformer2 import TransformerManager

from autograder.sandbox.forkserver import die_with_parent
from autograder.sandbox.identity import UID_RANGE
from autograder.sandbox.late_imports import LATE_IMPORTS

# Every kernel imports ipykernel's debugger (debugpy's pydevd) as it starts: 0.2 s of the 0.25 s
# of CPU a kernel's start takes. Imported here, once; with pydevd's check of frozen modules off,
# which would print a warning on this server's stderr (only a debugging session uses it). The
# import starts no thread; it sets sys.breakpointhook, as it does in a fresh kernel.
os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
import ipykernel.debugger  # noqa: E402, F401
import torch  # noqa: F401
import torch._subclasses.schema_check_mode  # noqa: F401

NAMESPACES = ("cgroup", "ipc", "net", "uts", "mnt")  # joined by the kernel, mnt last; pid by its parent
READY_WAIT = 60  # seconds the sandbox gets to come up
_libc = ctypes.CDLL(None, use_errno=True)
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4


def _check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _setns(fd):
    _check(_libc.setns(fd, 0), "setns")


def _sandbox_init(bwrap, handle, ready):
    """The pid of bubblewrap's child (the sandbox's init) once the placeholder marked it ready."""
    end = time.monotonic() + READY_WAIT
    while not os.path.exists(ready):
        if time.monotonic() > end or select.select([handle], [], [], 0.005)[0]:  # bwrap ended
            raise RuntimeError("the sandbox did not come up")
    if os.path.basename(os.readlink(f"/proc/{bwrap}/exe")) != "bwrap":
        raise RuntimeError("not a sandbox")
    with open(f"/proc/{bwrap}/task/{bwrap}/children") as children:
        return int(children.read().split()[0])


def _checked(request):
    """The request, refused unless it names an unprivileged uid of the sandbox's range and cgroup
    files (defence in depth: only the grader's own executor talks to this server)."""
    first, count = UID_RANGE
    for key in ("uid", "gid"):
        if not first <= request[key] < first + count:
            raise ValueError(f"{key} {request[key]} is outside the sandbox's range")
    if any(os.path.basename(path) != "cgroup.procs" for path in request["procs"]):
        raise ValueError("not a cgroup")
    return request


def prepare(request):
    """Before forking for ``request``: import the heavy modules it names that its notebook will
    import (:mod:`autograder.sandbox.late_imports`), once, at the first request that names them."""
    for module in request.get("imports", ()):
        if module in LATE_IMPORTS:
            importlib.import_module(module)


def child(request, fds):
    """Fork a kernel into the sandbox ``request`` names (see the module's docstring); return
    when it ended, the sandbox killed."""
    die_with_parent()
    request = _checked(request)
    bwrap = os.pidfd_open(request["bwrap"])  # a handle that cannot outlive bwrap's pid
    for path in request["procs"]:
        with open(path, "w") as procs:
            procs.write(f"{os.getpid()}\n")
    init = _sandbox_init(request["bwrap"], bwrap, request["ready"])
    namespaces = {name: os.open(f"/proc/{init}/ns/{name}", os.O_RDONLY)
                  for name in (*NAMESPACES, "pid") if os.path.exists(f"/proc/{init}/ns/{name}")}
    _setns(namespaces.pop("pid"))
    kernel = os.fork()
    if kernel == 0:
        try:
            for name in NAMESPACES:
                if name in namespaces:
                    _setns(namespaces[name])
            _become_kernel(request)
        finally:
            os._exit(1)
    os.waitpid(kernel, 0)
    signal.pidfd_send_signal(bwrap, signal.SIGKILL)


def _become_kernel(request):
    os.setsid()
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    _drop(request["uid"], request["gid"], request["rlimits"])
    os.chdir(request["workdir"])
    for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:] = [p for p in sys.path[1:] if p != request["package_parent"]]  # no working folder: see below
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    random.seed()
    numpy.random.seed()
    # --IPKernelApp.ignore_cwd: the working folder stays off sys.path, so nothing the notebook writes
    # there can be imported (code from data the rules never read); only notebooks are collected, so
    # no honest submission imports a file of its own.
    sys.argv = ["ipykernel_launcher", "-f", request["connection_file"], "--IPKernelApp.ignore_cwd=True",
                *request["arguments"]]
    app = ipykernel.kernelapp.IPKernelApp.instance()  # as launch_new_instance, with one step between
    app.initialize(sys.argv[1:])
    LastCellTransforms.install(app.shell)
    app.start()
    os._exit(0)


class LastCellTransforms(TransformerManager):
    """IPython's input transformations (``%magic``, ``!cmd``, ...), with one cell's result kept
    until that cell has run. ipykernel transforms each cell twice, to decide whether it runs
    asynchronously and again to run it; transforming tokenizes the whole cell in Python (25-55 ms
    for a graded notebook of this course). Same transformers, same results, computed once."""

    last = None  # (cell, its transformation)

    @classmethod
    def install(cls, shell):
        """Give ``shell`` this manager, with the transformer lists of the one it had (the same
        lists: what registers a transformer later registers it here)."""
        old, new = shell.input_transformer_manager, cls()
        new.cleanup_transforms, new.line_transforms = old.cleanup_transforms, old.line_transforms
        new.token_transformers = old.token_transformers
        shell.input_transformer_manager = new
        shell.events.register("post_execute", new.forget)

    def forget(self):
        self.last = None

    def transform_cell(self, cell):
        if self.last is None or self.last[0] != cell:
            self.last = (cell, super().transform_cell(cell))
        return self.last[1]


def _drop(uid, gid, rlimits):
    """Root to ``uid`` for good, as ``setpriv --reuid --regid --clear-groups --inh-caps=-all
    --bounding-set=-all --no-new-privs`` and ``prlimit`` do in the bubblewrap path."""
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "dropping the bounding set")
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient capabilities")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    _check(_libc.capset(header, (ctypes.c_uint32 * 6)()), "clearing capabilities")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    for name, value in rlimits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if os.getuid() != uid or os.geteuid() != uid or os.getgroups():
        raise OSError("the kernel did not drop its privileges")
