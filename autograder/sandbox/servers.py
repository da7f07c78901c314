"""The grading worker's fork servers (:mod:`autograder.sandbox.forkserver`): the executor server
(:mod:`autograder.sandbox.executor`) and, where kernels drop to a uid of their own, the kernel
server (:mod:`autograder.sandbox.kernel_server`). Started, shared with a local pool's workers, or
connected to; never given a student's file."""
import os
import sys
from contextlib import contextmanager

from autograder.sandbox import forkserver
from autograder.sandbox.bubblewrap import kernel_env
from autograder.sandbox.probe import runs_unprivileged

EXECUTOR_SERVER = "autograder.sandbox.executor"
KERNEL_SERVER = "autograder.sandbox.kernel_server"


def executor_server() -> forkserver.Server:
    """This process's executor server (ServerGone when it cannot start)."""
    return forkserver.server(EXECUTOR_SERVER, dict(os.environ))


@contextmanager
def shared_servers():
    """For the body, the fork servers that this process's forked workers (a local pool's) connect
    to, in place of two of their own each: they start while the pool does."""
    forkserver.share(EXECUTOR_SERVER, dict(os.environ))
    if runs_unprivileged():
        forkserver.share(KERNEL_SERVER, kernel_env())
    try:
        yield
    finally:
        forkserver.unshare()


def begin_servers() -> bool:
    """Connect to the fork servers the grading process shares, or start this process's own, side
    by side, without waiting for them (a Dask worker's, as a batch begins: they import while the
    grading process admits the first students). Whether kernels come from a kernel server (they
    drop to a uid of their own)."""
    kernels = runs_unprivileged()
    forkserver.start(EXECUTOR_SERVER, dict(os.environ))
    if kernels:
        forkserver.start(KERNEL_SERVER, kernel_env())
    return kernels


def start_servers() -> None:
    """:func:`begin_servers`, then wait for them (a local pool's worker initializer: while the
    grading process generates the assignment). An executor server that cannot start is left to the
    first submission, which says why; so is a kernel server (:func:`kernel_server_sockets`)."""
    kernels = begin_servers()
    try:
        executor_server()
    except forkserver.ServerGone:
        return
    if kernels:
        kernel_server_sockets()


_no_kernel_server = []  # why this process's kernel server could not start, once it could not


def kernel_server_sockets() -> list:
    """[the kernel server's socket], or [] (each kernel a fresh process, as capped as ever) when it
    cannot start here: said once, on stderr."""
    if _no_kernel_server:
        return []
    try:
        return [forkserver.server(KERNEL_SERVER, kernel_env()).fileno()]
    except forkserver.ServerGone as error:
        _no_kernel_server.append(str(error))
        print(f"{error}: each notebook starts a fresh kernel instead (slower, as safe)", file=sys.stderr)
        return []
