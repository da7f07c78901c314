"""Fork servers: a process that imports what its children need once, then forks one child per request.

Grading uses two (see :mod:`autograder.sandbox.servers`): the
executor server, which has imported nbformat, nbclient, nbconvert, jupyter_client and IPython, and
the kernel server, which has imported torch, numpy, IPython and ipykernel. Starting a Python
process and importing those costs seconds of CPU; forking one that already has costs milliseconds.
A local pool's workers share the servers their grading process started (:func:`share`), each over
a connection of its own; any other process (a Dask worker, a test) starts its own.

A server holds nothing of any student: it is started before any submission is read, it receives
only small requests (paths, pids, a uid; never a notebook), and it reads nothing back from a child
but its exit status. The child does everything that concerns one student (entering its cgroup,
namespaces and uid) after the fork, in ``MODULE.child(request, fds)``, having closed every socket
of the server.

Protocol, over ``SOCK_SEQPACKET`` sockets (one message per packet, so a client killed mid-send
cannot garble the next request): the server says ``{"ready"}`` on each connection once it has
imported; the client sends a JSON request with an ``id`` (and file descriptors, ``SCM_RIGHTS``); the
server calls ``MODULE.prepare(request)`` if there is one (to import, once, what that kind of request
needs), forks, replies ``{"id", "pid"}`` and, when the child ends, ``{"id", "status"}`` (its exit
code, negative for a signal). Children of different connections run side by side.

Run as ``python -m autograder.sandbox.forkserver MODULE FD [LISTENING]``: FD is the server's end of
its owner's socket (the server ends when the owner's end closes); a shared server also accepts on
LISTENING, a socket its owner bound in a folder only the grader's user can enter, connections from
that user only.
"""
import gc
import importlib
import json
import os
import secrets
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
from contextlib import contextmanager
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


class Server(Channel):
    """A channel to the fork server for ``module`` with ``env``, which says it is ready once."""

    def __init__(self, sock: socket.socket, module: str, env: dict):
        super().__init__(sock)
        self.module, self.env, self.started, self.owner = module, env, False, os.getpid()

    def ready(self) -> "Server":
        """This server once it has imported what it preloads; ServerGone (and closed) if it did not."""
        if not self.started:
            try:
                self.reply(None, "ready", timeout=START_WAIT)
            except (TimeoutError, ServerGone):
                self.close()
                raise ServerGone(f"the fork server for {self.module} did not start") from None
            self.started = True
        return self


class ForkServer(Server):
    """A server process, started, and the worker's channel to it (:meth:`ready` waits for it).
    ``shared``: it also listens for the connections of this process's forked workers (:func:`share`)."""

    def __init__(self, module: str, env: dict, cwd="/", shared=False):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        super().__init__(ours, module, env)
        self.folder = self.address = None
        fds = [theirs]
        if shared:  # listening before the server starts: a worker may connect at once
            self.folder = tempfile.mkdtemp(prefix="finite-server-")  # mode 0700
            self.address = os.path.join(self.folder, "socket")
            fds.append(socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET))
            fds[1].bind(self.address)
            fds[1].listen(64)
        path = os.pathsep.join(filter(None, [PACKAGE_PARENT, env.get("PYTHONPATH")]))  # this grader's code first
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autograder.sandbox.forkserver", module, *(str(s.fileno()) for s in fds)],
            env={**env, "PYTHONPATH": path},
            cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=[s.fileno() for s in fds], start_new_session=True)
        for s in fds:
            s.close()

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def close(self):
        self.sock.close()
        if self.owner == os.getpid():
            self.process.kill()
            self.process.wait()
            if self.folder:
                shutil.rmtree(self.folder, ignore_errors=True)


class Connection(Server):
    """A forked worker's connection to a server its grading process shares (:func:`share`)."""

    def __init__(self, module: str, env: dict, address: str):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect(address)
        except OSError as error:
            sock.close()
            raise ServerGone(f"the shared fork server for {module} is gone ({error.strerror})") from None
        super().__init__(sock, module, env)

    def alive(self) -> bool:
        """Whether the server still holds its end (between requests it sends nothing, so a
        readable socket that holds no packet has been closed)."""
        if self.owner != os.getpid():
            return False
        try:
            return not select.select([self.sock], [], [], 0)[0] or self.sock.recv(1, socket.MSG_PEEK) != b""
        except (OSError, ValueError):
            return False

    def close(self):
        self.sock.close()


_servers: dict = {}  # module -> this process's ForkServer or Connection
_shared: dict = {}  # module -> the ForkServer a forked worker of this process connects to
_inherited: dict = {}  # module -> {"address", "env"} of the server the grading process shares


def share(module: str, env: dict) -> None:
    """Start (unless it runs) a server for ``module`` that this process's forked workers connect to,
    instead of each starting its own; not waited for."""
    running = _shared.get(module)
    if running is None or not running.alive() or running.env != env:
        if running is not None:
            running.close()
        _shared[module] = ForkServer(module, env, shared=True)


def unshare() -> None:
    """Stop the servers this process shares (their folders go with them)."""
    for running in _shared.values():
        running.close()
    _shared.clear()


def start(module: str, env: dict) -> Server:
    """This process's server for ``module`` with ``env``: a connection to the one its grading process
    shares, else its own, started now (or restarted: it died, or the environment changed) unless it
    runs; not waited for."""
    running = _servers.get(module)
    if running is None or not running.alive() or running.env != env:
        if running is not None:
            running.close()
        running = _servers[module] = _connect(module, env) or ForkServer(module, env)
    return running


def _connect(module, env):
    """A connection to the server this worker's grading process shares for ``module``, or None."""
    shared = _inherited.get(module)
    if shared is None or shared["env"] != env:
        return None
    try:
        return Connection(module, env, shared["address"])
    except ServerGone:
        return None


def server(module: str, env: dict) -> Server:
    """This process's server for ``module`` with ``env``, ready (see :func:`start`); a shared
    server that is gone is replaced by one of this process's own."""
    running = start(module, env)
    try:
        return running.ready()
    except ServerGone:
        if not isinstance(running, Connection):
            raise
        _inherited.pop(module, None)
        _servers.pop(module, None)
        return start(module, env).ready()


def _forget_inherited():
    """In a forked worker: the parent's servers and sockets are not ours; the servers it shares are
    reached by address."""
    _inherited.clear()
    _inherited.update({module: {"address": s.address, "env": s.env}
                       for module, s in _shared.items()})
    for running in (*_servers.values(), *_shared.values()):
        running.sock.close()
    _servers.clear()
    _shared.clear()


os.register_at_fork(after_in_child=_forget_inherited)


def serve(module_name: str, fd: int, listening: int | None = None) -> None:
    """The server's loop: import ``module_name`` (its imports are what children inherit), then fork
    a child per request of the owner's connection (``fd``) or of one accepted on ``listening``, until
    the owner's end closes."""
    listener = socket.socket(fileno=listening) if listening is not None else None
    with _collector_off():
        module = importlib.import_module(module_name)
    owner = socket.socket(fileno=fd)
    owner.send(json.dumps({"ready": True}).encode())
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    channels, children = [owner], {}  # children: pidfd -> (pid, channel, request id)
    while owner in channels:
        readable, _, _ = select.select(([listener] if listener else []) + channels + list(children), [], [])
        for handle in readable:
            if handle is listener:
                _accept(listener, channels)
            elif handle in children:
                pid, channel, request_id = children.pop(handle)
                os.close(handle)
                _, status = os.waitpid(pid, 0)
                _send(channel, {"id": request_id, "status": os.waitstatus_to_exitcode(status)})
            elif handle in channels:
                _take(module, handle, channels, children, listener)


def _accept(listener, channels):
    """A worker's connection, from the grader's own user only."""
    connection, _ = listener.accept()
    _, uid, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    if uid != os.geteuid():
        connection.close()
        return
    channels.append(connection)
    _send(connection, {"ready": True})


def _take(module, channel, channels, children, listener):
    """Read one request from ``channel`` and fork its child (or drop the channel, closed)."""
    try:
        packet, fds, _, _ = socket.recv_fds(channel, PACKET, MAX_FDS)
    except OSError:
        packet, fds = b"", []
    if not packet:
        channels.remove(channel)
        channel.close()
        return
    try:
        request = json.loads(packet)
    except ValueError:
        for fd in fds:
            os.close(fd)
        return
    if hasattr(module, "prepare"):
        with _collector_off():
            try:
                module.prepare(request)
            except Exception:
                traceback.print_exc()  # the child goes without what it could not import
    # What the server holds goes to the collector's permanent generation: children's collections
    # never walk it, so its pages stay shared rather than copied as a collector touches them.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for handle in (listener, *channels):
                if handle is not None:
                    handle.close()
            for handle in children:
                os.close(handle)
            module.child(request, fds)
            code = 0
        except BaseException:
            traceback.print_exc()  # to the child's stderr: the executor's log, or nowhere
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    children[os.pidfd_open(pid)] = (pid, channel, request.get("id"))
    _send(channel, {"id": request.get("id"), "pid": pid})


@contextmanager
def _collector_off():
    """Python's cyclic garbage collector off while the server imports: its passes over what is
    imported so far are 15 % of the imports' CPU, and what a module imports stays."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _send(channel, message):
    try:
        channel.send(json.dumps(message).encode())
    except OSError:
        pass  # the client is gone; its children end with their sandboxes


def die_with_parent():
    """SIGKILL this process when its parent (the server) dies (Linux ``PR_SET_PDEATHSIG``), so
    what it started (``bwrap --die-with-parent``) goes too; a server dies with its owner."""
    import ctypes

    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(1)


if __name__ == "__main__":
    serve(sys.argv[1], *map(int, sys.argv[2:4]))
