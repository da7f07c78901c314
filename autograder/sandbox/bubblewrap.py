"""Run a notebook kernel inside a bubblewrap sandbox.

The sandbox sees the operating system, the Python installation and the learner-side ``fplab``
package read-only; nothing else of the course, the submissions or the grading output exists
inside. It has no network, its own PID namespace (everything in it dies with it), no
capabilities, and caps on the total memory, processes and bytes written of everything it runs
(:mod:`autograder.sandbox.caps`). The only writable places are a private, size-capped /tmp holding the
working folder /tmp/work, a size-capped /dev/shm, and the folder of the kernel's Unix sockets,
through which the grader talks to the kernel, so the client (which holds the hidden tests)
stays outside.
"""
import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"]
WORKDIR = "/tmp/work"
FPLAB_PARENT = "/opt/finite"  # where the grader's own fplab is bound inside, first on PYTHONPATH  # the kernel's working folder inside the sandbox, on the capped /tmp
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission."""

    cell_timeout: int = 60  # seconds per cell (the cell is interrupted)
    notebook_timeout: int = 600  # seconds for the whole notebook (the sandbox is killed)
    memory_mb: int = 4096  # total memory of everything one submission runs (also RLIMIT_DATA per process)
    max_procs: int = 64  # processes and threads of one submission, together
    disk_mb: int = 512  # bytes one submission may write: /tmp with its working folder (and /dev/shm)


class SandboxError(Exception):
    """The sandbox cannot be set up on this machine (missing bwrap, unsafe layout)."""


def read_only_binds():
    """(host path, path inside) for what the kernel needs: system folders, the interpreter, the
    venv, fplab's source. A venv reached through a symlink is bound at the path the kernel is
    started by, too, since that path is what the kernel's command line names."""
    binds = {(Path(p), Path(p)) for p in SYSTEM_DIRS if Path(p).exists() and not Path(p).is_symlink()}
    for path in [sys.base_prefix, sys.prefix]:
        seen, real = Path(path).absolute(), Path(path).resolve()
        binds |= {(real, real), (real, seen)}
    binds.add((fplab_dir(), Path(FPLAB_PARENT) / "fplab"))
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


def bwrap_command(sockets, limits, argv, sized=True):
    """The bubblewrap command line that runs ``argv`` in the sandbox, in WORKDIR.

    ``sockets``: the host folder of the kernel's connection file and sockets, bound at the same
    path; ``sized``: bubblewrap can cap a tmpfs (``--size``), see :func:`autograder.sandbox.caps.tmpfs_size_problem`.
    """
    bwrap = shutil.which("bwrap")
    prlimit = shutil.which("prlimit")
    if not bwrap or not prlimit:
        raise SandboxError("bubblewrap (bwrap) and prlimit are required: apt-get install bubblewrap")
    cmd = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    # Order matters: the private /tmp first, so binds of paths under /tmp (a venv there) stay visible.
    size = ["--size", str(limits.disk_mb * MB)] if sized else []
    cmd += ["--dev", "/dev", "--proc", "/proc", *size, "--tmpfs", "/tmp", *size, "--tmpfs", "/dev/shm"]
    for source, inside in read_only_binds():
        cmd += ["--ro-bind", str(source), str(inside)]
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if Path(link).is_symlink():  # merged-/usr systems: keep the links, not copies
            cmd += ["--symlink", str(Path(link).readlink()), link]
    cmd += ["--dir", WORKDIR, "--bind", str(sockets), str(sockets),
            "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR, "--clearenv"]
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": WORKDIR,
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{WORKDIR}/.matplotlib",
        "IPYTHONDIR": f"{WORKDIR}/.ipython",
        "NBGRADER_EXECUTION": "autograde",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": FPLAB_PARENT,
        "OMP_NUM_THREADS": "1",
    }
    for name, value in env.items():
        cmd += ["--setenv", name, value]
    backstops = [f"--data={limits.memory_mb * MB}", f"--fsize={limits.disk_mb * MB}", "--core=0"]
    return cmd + ["--", prlimit, *backstops, "--", *argv]


class QuietKernelManager(AsyncKernelManager):
    """A kernel manager that keeps the kernel's own console chatter off the grader's terminal."""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)


class SandboxedKernelManager(QuietKernelManager):
    """A kernel manager whose kernel runs in the sandbox, reached over Unix sockets.

    With an ``enclosure`` (:class:`autograder.sandbox.caps.Enclosure`) the sockets live in its folder and
    the sandbox runs inside its cgroup; without one, in ``scratch`` and uncapped.
    """

    scratch: Path = None
    limits: Limits = Limits()
    enclosure = None

    def __init__(self, **kwargs):
        super().__init__(transport="ipc", **kwargs)
        sockets = self.sockets()
        self.ip = str(sockets / "kernel")
        self.connection_file = str(sockets / "kernel.json")

    def sockets(self):
        return self.enclosure.sockets if self.enclosure else self.scratch

    def format_kernel_cmd(self, extra_arguments=None):
        argv = super().format_kernel_cmd(extra_arguments)
        self.kernel_spec.interrupt_mode = "message"  # a signal would hit bwrap, not the kernel
        if self.enclosure is None:
            from autograder.sandbox.caps import tmpfs_size_problem

            return bwrap_command(self.sockets(), self.limits, argv, sized=tmpfs_size_problem() is None)
        return self.enclosure.launcher() + bwrap_command(self.sockets(), self.limits, argv,
                                                         sized=self.enclosure.sized)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        await super()._async_launch_kernel(kernel_cmd, **kw)
        if self.enclosure is not None:
            self.enclosure.started(self.provisioner.process.pid)

    async def shutdown_kernel(self, now=False, restart=False):
        if self.enclosure is not None:
            self.enclosure.sample()  # the sandbox's tmpfs vanishes with it
        await super().shutdown_kernel(now=now, restart=restart)


def kernel_manager_class(scratch, limits, enclosure=None):
    """A SandboxedKernelManager subclass bound to one scratch folder, limits and enclosure."""
    return type("BoundSandboxedKernelManager", (SandboxedKernelManager,),
                {"scratch": Path(scratch), "limits": limits, "enclosure": enclosure})
