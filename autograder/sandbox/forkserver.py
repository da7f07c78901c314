"""Fork servers: a process that imports what its children need once, then forks one child per request.

A grading worker keeps two (see :mod:`autograder.sandbox.client` and :mod:`autograder.sandbox.zygote`):
the executor server, which has imported nbformat, nbclient, nbgrader, jupyter_client and IPython,
and the kernel server, which has imported torch, numpy, IPython and ipykernel. Starting a Python
process and importing those costs seconds of CPU; forking one that already has costs milliseconds.

A server holds nothing of any student: it is started before any submission is read, it receives
only small requests (paths, pids, a uid; never a notebook), and it reads nothing back from a child
but its exit status. The child does everything that concerns one student (entering its cgroup,
namespaces and uid) after the fork, in ``MODULE.child(request, fds)``.

Protocol, over a ``SOCK_SEQPACKET`` socket pair (one message per packet, so a client killed
mid-send cannot garble the next request): the server says ``{"ready"}`` once it has imported; the
client sends a JSON request with an ``id`` (and
file descriptors, ``SCM_RIGHTS``); the server calls ``MODULE.prepare(request)`` if there is one (to
import, once, what that kind of request needs), forks, replies ``{"id", "pid"}``, waits for the child
and replies ``{"id", "status"}`` (its exit code, negative for a signal). Children run one at a time.

Run as ``python -m autograder.sandbox.forkserver MODULE FD`` (FD: the server's end of the socket).
"""
import importlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import traceback
from pathlib import Path

PACKET = 64 * 1024
START_WAIT = 300  # seconds a server gets to import what it preloads
MAX_FDS = 4
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


class ServerGone(Exception):
    """The fork server stopped (its socket closed) before it answered."""


class Child:
    """One forked child, as its client sees it."""

    def __init__(self, channel, request_id, pid):
        self.channel, self.id, self.pid = channel, request_id, pid

    def wait(self, timeout=None):
        """The child's exit code (negative: the signal that ended it). TimeoutError after
        ``timeout`` seconds; ServerGone when the server died first."""
        return self.channel.reply(self.id, "status", timeout)

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Channel:
    """The client's end of a server's socket (the worker's, or one an executor inherited)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def fork(self, request: dict, fds=()) -> Child:
        """Ask for a child running ``MODULE.child(request, fds)``. ServerGone when the server is."""
        request_id = secrets.token_hex(8)
        try:
            socket.send_fds(self.sock, [json.dumps({**request, "id": request_id}).encode()], list(fds))
        except OSError as error:
            raise ServerGone(f"the fork server is gone ({error.strerror})") from None
        return Child(self, request_id, self.reply(request_id, "pid", timeout=60))

    def reply(self, request_id, key, timeout):
        """The value of ``key`` in the server's next reply to ``request_id`` (replies to earlier
        requests, whose client was stopped before it read them, are skipped)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                try:
                    packet = self.sock.recv(PACKET)
                except socket.timeout:
                    raise TimeoutError(f"no {key} from the fork server in {timeout} s") from None
                if not packet:
                    raise ServerGone("the fork server stopped")
                message = json.loads(packet)
                if message.get("id") == request_id and key in message:
                    return message[key]
        finally:
            self.sock.settimeout(None)

    def fileno(self):
        return self.sock.fileno()


class ForkServer(Channel):
    """A server process, started, and the worker's channel to it (:meth:`ready` waits for it)."""

    def __init__(self, module: str, env: dict, cwd="/"):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        super().__init__(ours)
        self.env = env
        path = os.pathsep.join(filter(None, [PACKAGE_PARENT, env.get("PYTHONPATH")]))  # this grader's code first
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder.sandbox.forkserver", module, str(theirs.fileno())],
            env={**env, "PYTHONPATH": path},
            cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), start_new_session=True)
        theirs.close()
        self.owner, self.module, self.started = os.getpid(), module, False

    def ready(self) -> "ForkServer":
        """This server once it has imported what it preloads; ServerGone (and closed) if it did not."""
        if not self.started:
            try:
                self.reply(None, "ready", timeout=START_WAIT)
            except (TimeoutError, ServerGone):
                self.close()
                raise ServerGone(f"the fork server for {self.module} did not start") from None
            self.started = True
        return self

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def close(self):
        self.sock.close()
        if self.owner == os.getpid():
            self.process.kill()
            self.process.wait()


_servers: dict = {}


def start(module: str, env: dict) -> ForkServer:
    """This process's server for ``module`` with ``env``, started now (or restarted: it died, or
    the environment changed) unless it runs; not waited for."""
    running = _servers.get(module)
    if running is None or not running.alive() or running.env != env:
        if running is not None:
            running.close()
        running = _servers[module] = ForkServer(module, env)
    return running


def server(module: str, env: dict) -> ForkServer:
    """This process's server for ``module`` with ``env``, ready (see :func:`start`)."""
    return start(module, env).ready()


def _forget_inherited():
    """In a forked worker: the parent's servers are not ours (their sockets stay the parent's)."""
    for running in _servers.values():
        running.sock.close()
    _servers.clear()


os.register_at_fork(after_in_child=_forget_inherited)


def serve(module_name: str, fd: int) -> None:
    """The server's loop: import ``module_name`` (its imports are what children inherit), then
    fork a child per request, one at a time, until the client's end closes."""
    module = importlib.import_module(module_name)
    sock = socket.socket(fileno=fd)
    sock.send(json.dumps({"ready": True}).encode())
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    while True:
        try:
            packet, fds, _, _ = socket.recv_fds(sock, PACKET, MAX_FDS)
        except OSError:
            return
        if not packet:
            return
        try:
            request = json.loads(packet)
        except ValueError:
            for fd in fds:
                os.close(fd)
            continue
        if hasattr(module, "prepare"):
            try:
                module.prepare(request)
            except Exception:
                traceback.print_exc()  # the child goes without what it could not import
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                sock.close()
                module.child(request, fds)
                code = 0
            except BaseException:
                traceback.print_exc()  # to the child's stderr: the executor's log, or nowhere
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps({"id": request.get("id"), "pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        sock.send(json.dumps({"id": request.get("id"), "status": os.waitstatus_to_exitcode(status)}).encode())


def die_with_parent():
    """SIGKILL this process when its parent (the server) dies (Linux ``PR_SET_PDEATHSIG``), so
    what it started (``bwrap --die-with-parent``) goes too; the server dies with its worker."""
    import ctypes

    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(1)


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
