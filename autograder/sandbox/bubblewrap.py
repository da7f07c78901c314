"""Run a notebook kernel inside a bubblewrap sandbox.

The sandbox sees the operating system, the Python installation and the learner-side ``fplab``
package read-only, and of ``/etc`` only the few world-readable files a kernel needs
(:data:`ETC_ENTRIES`; no ``shadow``, no ``ssh/``, no credentials); nothing else of the course, the
submissions or the grading output exists inside. It has no network, its own PID namespace
(everything in it dies with it), no capabilities, and caps on the total memory, processes, CPU
and bytes written of everything it runs (:mod:`autograder.sandbox.enclosure`).

Where the grader runs as root (cgroup v1 needs it), the kernel does not: bubblewrap, as root,
builds the sandbox (its binds reach root-only paths such as a Python under ``/root``), keeps
only ``CAP_SETUID``/``CAP_SETGID``/``CAP_SETPCAP``, and the first thing it starts inside is
``setpriv``, which drops for good to a uid of the submission's own (:class:`Identity`: no
account on the host, a random one from :data:`UID_RANGE`) with no groups, no capabilities
(bounding set included) and ``no_new_privs``, before ``prlimit`` and the kernel. The kernel and
all it starts are that uid outside the sandbox too, so a root-only file stays unreadable even
where it is bound. The only writable places are a private, size-capped /tmp holding the
working folder /tmp/work, a size-capped /dev/shm, and the folder of the kernel's Unix sockets,
through which the grader talks to the kernel, so the client (which holds the hidden tests)
stays outside.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import zmq
from jupyter_client.manager import AsyncKernelManager

from autograder.sandbox import SandboxError
from autograder.sandbox.forkserver import PACKAGE_PARENT, ServerGone
from autograder.sandbox.identity import KEPT_CAPS, SANDBOX_USER, WORKDIR, drop_to
from autograder.sandbox.limits import MB, Limits
from autograder.sandbox.probe import tmpfs_size_problem
from autograder.sandbox.traffic import metered_client_class

SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64"]
# The files of /etc a kernel needs (dynamic linker, name service, time zone, MIME types, the
# Debian Python's sitecustomize, fonts for matplotlib), bound only where world-readable; passwd
# and group are written per sandbox (see Identity). Never shadow, ssh/, ssl/private, pip.conf...
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "host.conf", "hosts",
               "gai.conf", "localtime", "timezone", "protocols", "services", "networks", "mime.types",
               "os-release", "debian_version", "alternatives", "fonts", "locale.alias", "python3",
               f"python{sys.version_info.major}.{sys.version_info.minor}", "matplotlibrc")
FPLAB_PARENT = "/opt/finite"  # where the grader's own fplab is bound inside, first on PYTHONPATH
MAX_MESSAGE = 64 * MB  # the largest message frame the grader accepts from a kernel (see outputs.py's caps)


def _world_readable(path: Path, follow=True) -> bool:
    """``path`` (a file, or a folder and everything in it) can be read by any uid. A link inside
    a folder counts as readable: it shows nothing that is not bound on its own."""
    import stat

    try:
        mode = path.stat().st_mode if follow else path.lstat().st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        return True
    if stat.S_ISDIR(mode):
        if mode & 0o005 != 0o005:
            return False
        try:
            return all(_world_readable(child, follow=False) for child in path.iterdir())
        except OSError:
            return False
    return bool(mode & 0o004)


def etc_binds():
    """(host path, path inside) for the entries of ETC_ENTRIES this machine has, world-readable."""
    found = []
    for name in ETC_ENTRIES:
        path = Path("/etc") / name
        if path.exists() and _world_readable(path):
            found.append((path, path))
    return found


def read_only_binds():
    """(host path, path inside) for what the kernel needs: system folders, the interpreter, the
    venv, fplab's source. A venv reached through a symlink is bound at the path the kernel is
    started by, too, since that path is what the kernel's command line names."""
    binds = {(Path(p), Path(p)) for p in SYSTEM_DIRS if Path(p).exists() and not Path(p).is_symlink()}
    for path in [sys.base_prefix, sys.prefix]:
        seen, real = Path(path).absolute(), Path(path).resolve()
        binds |= {(real, real), (real, seen)}
    binds.add((fplab_dir(), Path(FPLAB_PARENT) / "fplab"))
    binds |= set(etc_binds())
    return sorted(binds)


def fplab_dir() -> Path:
    """The ``fplab`` package this grader imports (and fingerprints): the sandbox binds exactly this
    one at ``FPLAB_PARENT/fplab``, first on the kernel's path, whichever way the venv installed it."""
    spec = importlib.util.find_spec("fplab")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError("the fplab package is not installed")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def read_only_paths():
    """Host paths the sandbox can read (see :func:`read_only_binds`)."""
    return sorted({source for source, _ in read_only_binds()})


def check_layout(protected):
    """Refuse to run when a read-only bind would expose a protected folder."""
    for path in read_only_paths():
        for secret in protected:
            secret = Path(secret).resolve()
            if secret == path or path in secret.parents:
                raise SandboxError(
                    f"unsafe layout: the sandbox must see {path}, which contains {secret}; "
                    "move the course, submissions or output folder elsewhere"
                )


def bwrap_command(sockets, limits, argv, sized=True, identity=None):
    """The bubblewrap command line that runs ``argv`` in the sandbox, in WORKDIR.

    ``sockets``: the host folder of the kernel's connection file and sockets, bound at the same
    path; ``sized``: bubblewrap can cap a tmpfs (``--size``), see :func:`autograder.sandbox.probe.tmpfs_size_problem`;
    ``identity``: the :class:`Identity` the kernel runs as (None: as whoever runs bubblewrap).
    """
    bwrap = shutil.which("bwrap")
    prlimit = shutil.which("prlimit")
    if not bwrap or not prlimit:
        raise SandboxError("bubblewrap (bwrap) and prlimit are required: apt-get install bubblewrap")
    caps = ["--cap-drop", "ALL"]
    if identity is not None:
        caps += [arg for cap in KEPT_CAPS for arg in ("--cap-add", cap)]
    cmd = [bwrap, "--die-with-parent", "--new-session", *caps,
           "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    # Order matters: the private /tmp first, so binds of paths under /tmp (a venv there) stay visible.
    size = ["--size", str(limits.disk_mb * MB)] if sized else []
    cmd += ["--dev", "/dev", "--proc", "/proc", *size, "--perms", "1777", "--tmpfs", "/tmp",
            *size, "--perms", "1777", "--tmpfs", "/dev/shm"]
    binds = read_only_binds()
    if identity is not None:
        binds = [b for b in binds if b[1] not in (Path("/etc/passwd"), Path("/etc/group"))]
        binds += [(identity.etc / "passwd", Path("/etc/passwd")), (identity.etc / "group", Path("/etc/group"))]
    else:
        binds += [(Path("/etc") / n, Path("/etc") / n) for n in ("passwd", "group") if (Path("/etc") / n).is_file()]
    mounted = [inside for _, inside in binds] + [Path(sockets)]
    # Folders on the way to a bind are made world-traversable: bubblewrap would copy a host
    # folder's mode (/root is 0700), and the kernel is not root.
    for folder in sorted({parent for inside in mounted for parent in inside.parents}):
        if str(folder) in ("/", "/dev", "/dev/shm", "/proc", "/tmp") or \
                any(folder == m or m in folder.parents for m in mounted):
            continue
        cmd += ["--perms", "0755", "--dir", str(folder)]
    for source, inside in sorted(binds):
        cmd += ["--ro-bind", str(source), str(inside)]
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if Path(link).is_symlink():  # merged-/usr systems: keep the links, not copies
            cmd += ["--symlink", str(Path(link).readlink()), link]
    cmd += ["--perms", "0777", "--dir", WORKDIR, "--bind", str(sockets), str(sockets),
            "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR, "--clearenv"]
    for name, value in kernel_env().items():
        cmd += ["--setenv", name, value]
    backstops = [f"--{PRLIMIT[name]}={value}" for name, value in rlimits(limits).items()]
    drop = drop_to(identity) if identity is not None else []
    return cmd + ["--", *drop, prlimit, *backstops, "--", *argv]


def kernel_env() -> dict:
    """The whole environment of a sandboxed kernel."""
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": WORKDIR,
        "USER": SANDBOX_USER,
        "LOGNAME": SANDBOX_USER,
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{WORKDIR}/.matplotlib",
        "IPYTHONDIR": f"{WORKDIR}/.ipython",
        "NBGRADER_EXECUTION": "autograde",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": FPLAB_PARENT,
        "OMP_NUM_THREADS": "1",
    }


SHUTDOWN_POLL = 0.01  # seconds between checks that a killed sandbox has ended
RECONNECT_MS = 5  # how often the executor's sockets retry connecting to a kernel still starting
PRLIMIT = {"RLIMIT_DATA": "data", "RLIMIT_FSIZE": "fsize", "RLIMIT_CORE": "core"}


def rlimits(limits) -> dict:
    """Per-process backstops under the cgroup's caps: {resource name: value}."""
    return {"RLIMIT_DATA": limits.memory_mb * MB, "RLIMIT_FSIZE": limits.disk_mb * MB, "RLIMIT_CORE": 0}


def placeholder(ready) -> list:
    """argv that marks the sandbox ready (an empty file at ``ready``) and waits to be killed: what
    bubblewrap runs when the kernel comes from the kernel server (:mod:`autograder.sandbox.kernel_server`)."""
    return ["/bin/sh", "-c", ': > "$0" && exec sleep infinity', str(ready)]


class QuietKernelManager(AsyncKernelManager):
    """A kernel manager that keeps the kernel's own console chatter off the grader's terminal."""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)


class SandboxedKernelManager(QuietKernelManager):
    """A kernel manager whose kernel runs in the sandbox, reached over Unix sockets.

    With an ``enclosure`` (:class:`autograder.sandbox.enclosure.Enclosure`) the sockets live in its folder and
    the sandbox runs inside its cgroup (the executor already does); without one, in ``scratch`` and
    uncapped. With ``kernels`` (the kernel server's :class:`~autograder.sandbox.forkserver.Channel`)
    bubblewrap runs a placeholder and the kernel is forked into the sandbox, pre-imported.
    """

    scratch: Path = None
    limits: Limits = Limits()
    enclosure = None
    meter = None  # an autograder.sandbox.traffic.Meter: the client counts what the kernel sends
    kernels = None
    imports = ()  # modules the kernel server imports before this kernel (late_imports, kernel_server.prepare)

    def __init__(self, **kwargs):
        super().__init__(transport="ipc", **kwargs)
        # The manager's control socket and the client's connect before the kernel has bound its
        # sockets; ZeroMQ retries every RECONNECT_IVL ms (100 by default: 45 ms of waiting per kernel).
        self.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        sockets = self.sockets()
        self.ip = str(sockets / "kernel")
        self.connection_file = str(sockets / "kernel.json")
        self.kernel_arguments = []

    def sockets(self):
        return self.enclosure.sockets if self.enclosure else self.scratch

    def format_kernel_cmd(self, extra_arguments=None):
        argv = super().format_kernel_cmd(extra_arguments)
        self.kernel_spec.interrupt_mode = "message"  # a signal would hit bwrap, not the kernel
        if self.enclosure is None:
            return bwrap_command(self.sockets(), self.limits, argv, sized=tmpfs_size_problem() is None)
        if self.kernels is not None:
            self.kernel_arguments = argv[argv.index(self.connection_file) + 1:]
            argv = placeholder(self.sockets() / "ready")
        return bwrap_command(self.sockets(), self.limits, argv, sized=self.enclosure.sized,
                             identity=self.enclosure.identity)

    def client(self, **kwargs):
        """A client whose sockets refuse any message frame over MAX_MESSAGE (the kernel is the
        learner's: a frame that large is dropped by ZeroMQ before it reaches this process)."""
        if self.meter is not None:
            self.client_factory = metered_client_class(self.meter)
        kc = super().client(**kwargs)
        kc.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        kc.context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        return kc

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        identity = self.enclosure.identity if self.enclosure is not None else None
        if identity is not None:  # written by this (root) process, read by the kernel's uid
            os.chown(self.connection_file, identity.uid, identity.gid, follow_symlinks=False)
        await super()._async_launch_kernel(kernel_cmd, **kw)
        if self.enclosure is not None:
            self.enclosure.started(self.provisioner.process.pid)
        if self.kernels is not None:
            self._fork_kernel(identity)

    def _fork_kernel(self, identity):
        cgroup = self.enclosure.cgroup
        try:
            self.kernels.fork({
                "bwrap": self.provisioner.process.pid, "ready": str(self.sockets() / "ready"),
                "procs": cgroup.procs_files() if cgroup else [], "uid": identity.uid, "gid": identity.gid,
                "rlimits": rlimits(self.limits), "env": kernel_env(), "workdir": WORKDIR,
                "connection_file": self.connection_file, "arguments": self.kernel_arguments,
                "package_parent": PACKAGE_PARENT, "imports": list(self.imports)})
        except ServerGone as error:
            raise SandboxError(str(error)) from None

    async def _async_wait(self, pollinterval=0.1):
        """jupyter_client's wait for the killed sandbox to end, polling every SHUTDOWN_POLL s, not
        0.1 s (on average 0.05 s per kernel)."""
        await super()._async_wait(min(pollinterval, SHUTDOWN_POLL))

    async def shutdown_kernel(self, now=False, restart=False):
        if self.enclosure is not None:
            self.enclosure.sample()  # the sandbox's tmpfs vanishes with it
        await super().shutdown_kernel(now=now, restart=restart)


def kernel_manager_class(scratch, limits, enclosure=None, meter=None, kernels=None, imports=()):
    """A SandboxedKernelManager subclass bound to one scratch folder, limits, enclosure, meter and
    kernel server (see :class:`SandboxedKernelManager`)."""
    return type("BoundSandboxedKernelManager", (SandboxedKernelManager,),
                {"scratch": Path(scratch), "limits": limits, "enclosure": enclosure, "meter": meter,
                 "kernels": kernels, "imports": tuple(imports)})
