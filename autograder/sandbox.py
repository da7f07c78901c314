"""Run a notebook kernel inside a bubblewrap sandbox.

The sandbox sees the operating system, the Python installation and the learner-side ``fplab``
package read-only, plus one writable scratch folder; nothing else of the course, the submissions
or the grading output exists inside. It has no network, its own PID namespace (everything in it
dies with it), no capabilities, and a memory limit per process; the only writable places are the
scratch folder and a private /tmp, both discarded afterwards. The grader talks to the kernel
through Unix sockets in the scratch folder, so the client (which holds the hidden tests) stays
outside.
"""
import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"]


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission."""

    cell_timeout: int = 60  # seconds per cell (the cell is interrupted)
    notebook_timeout: int = 600  # seconds for the whole notebook (the sandbox is killed)
    memory_mb: int = 4096  # data segment per process in the sandbox


class SandboxError(Exception):
    """The sandbox cannot be set up on this machine (missing bwrap, unsafe layout)."""


def read_only_paths():
    """Host paths the kernel needs: system folders, the interpreter, the venv, fplab's source."""
    paths = [Path(p) for p in SYSTEM_DIRS if Path(p).exists() and not Path(p).is_symlink()]
    paths += [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()]
    spec = importlib.util.find_spec("fplab")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError("the fplab package is not installed")
    paths += [Path(p).resolve() for p in spec.submodule_search_locations]
    return sorted(set(paths))


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


def bwrap_command(scratch, limits, argv):
    """The bubblewrap command line that runs ``argv`` in the sandbox, in ``scratch``."""
    bwrap = shutil.which("bwrap")
    prlimit = shutil.which("prlimit")
    if not bwrap or not prlimit:
        raise SandboxError("bubblewrap (bwrap) and prlimit are required: apt-get install bubblewrap")
    cmd = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    # Order matters: the private /tmp first, so binds of paths under /tmp (a venv there) stay visible.
    cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in read_only_paths():
        cmd += ["--ro-bind", str(path), str(path)]
    for link in ("/bin", "/sbin", "/lib", "/lib64"):
        if Path(link).is_symlink():  # merged-/usr systems: keep the links, not copies
            cmd += ["--symlink", str(Path(link).readlink()), link]
    cmd += ["--bind", str(scratch), str(scratch), "--remount-ro", "/", "--chdir", str(scratch), "--clearenv"]
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(scratch),
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(scratch / ".matplotlib"),
        "IPYTHONDIR": str(scratch / ".ipython"),
        "NBGRADER_EXECUTION": "autograde",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
    }
    for name, value in env.items():
        cmd += ["--setenv", name, value]
    memory = str(limits.memory_mb * 1024 * 1024)
    return cmd + ["--", prlimit, f"--data={memory}", "--core=0", "--", *argv]


class QuietKernelManager(AsyncKernelManager):
    """A kernel manager that keeps the kernel's own console chatter off the grader's terminal."""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)


class SandboxedKernelManager(QuietKernelManager):
    """A kernel manager whose kernel runs in the sandbox, reached over Unix sockets in ``scratch``."""

    scratch: Path = None
    limits: Limits = Limits()

    def __init__(self, **kwargs):
        super().__init__(transport="ipc", **kwargs)
        self.ip = str(self.scratch / "kernel")
        self.connection_file = str(self.scratch / "kernel.json")

    def format_kernel_cmd(self, extra_arguments=None):
        argv = super().format_kernel_cmd(extra_arguments)
        self.kernel_spec.interrupt_mode = "message"  # a signal would hit bwrap, not the kernel
        return bwrap_command(self.scratch, self.limits, argv)


def kernel_manager_class(scratch, limits):
    """A SandboxedKernelManager subclass bound to one scratch folder and limits."""
    return type("BoundSandboxedKernelManager", (SandboxedKernelManager,),
                {"scratch": Path(scratch), "limits": limits})
