"""Kernels and executors forked from pre-imported servers keep every property of a fresh sandbox:
nothing of an earlier student, no server file descriptor, a crash costs one student, a dead
server comes back (issue #29). Skips where the grader cannot run kernels unprivileged."""
import json
import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.sandbox import forkserver
from autograder.sandbox.limits import Limits

pytestmark = [pytest.mark.slow, pytest.mark.sandbox(as_root=True)]  # the kernel server needs the sandbox as root

LEAVE_TRACES = """
import sys, torch, fplab, numpy
torch.finite_trace = fplab.finite_trace = "earlier student"
sys.modules["finite_trace"] = numpy
open("/tmp/finite_trace", "w").write("earlier student")
open("/dev/shm/finite_trace", "w").write("earlier student")
print("left")
"""
LOOK = """
import json, os, socket, sys
seqpackets = []
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        kind = socket.socket(fileno=os.dup(fd))
    except OSError:
        continue
    seqpackets += [fd] if kind.type == socket.SOCK_SEQPACKET else []
    kind.close()
import torch, fplab
print(json.dumps({
    "pid": os.getpid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "preloaded": "autograder.sandbox.kernel_server" in sys.modules,
    "traces": [hasattr(torch, "finite_trace"), hasattr(fplab, "finite_trace"), "finite_trace" in sys.modules,
               os.path.exists("/tmp/finite_trace"), os.path.exists("/dev/shm/finite_trace")],
    "seqpackets": seqpackets, "uid": os.getuid(), "path": sys.path, "cwd": os.getcwd(),
}))
"""


def run(*sources):
    from autograder.sandbox.run import run_in_sandbox

    nb = new_notebook(cells=[new_code_cell(s, metadata={"nbgrader": {"solution": True, "grade_id": f"a{i}"}})
                             for i, s in enumerate(sources)])
    done = run_in_sandbox(nbformat.writes(nb), Limits())
    return done, nbformat.reads(done.executed, as_version=4)


def printed(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_a_forked_kernel_holds_nothing_of_an_earlier_student_nor_of_the_server():
    first, nb = run(LEAVE_TRACES)
    assert first.outcome == "ok" and "left" in printed(nb.cells[0])
    second, nb = run(LOOK)
    seen = json.loads(printed(nb.cells[0]))
    assert seen["preloaded"], "the kernel did not come from the kernel server"
    assert seen["traces"] == [False] * 5
    assert seen["seqpackets"] == []  # no socket of a fork server
    assert seen["uid"] == second.usage.uid != first.usage.uid
    assert seen["pids"] == sorted({1, 2, seen["pid"]} | set(seen["pids"])) and len(seen["pids"]) <= 4
    assert seen["path"][0] == "/opt/finite" and seen["cwd"] == "/tmp/work"
    assert "/tmp/work" not in seen["path"] and "" not in seen["path"]  # what the notebook writes is not importable


# Run twice: the second run's text is transformed by the transformer its first run registered.
REGISTERS = """
if not hasattr(get_ipython(), "marked"):
    get_ipython().marked = True
    get_ipython().input_transformers_cleanup.append(lambda lines: [l.replace("MARK", "SEEN") for l in lines])
print("MARK")
"""


def test_a_forked_kernel_transforms_each_cell_as_ipython_does_with_the_transformers_of_that_moment():
    _, nb = run("%time x = 41 + 1", "!echo shell", REGISTERS, REGISTERS, "print(x)")
    assert "Wall time" in printed(nb.cells[0]) and printed(nb.cells[1]).strip() == "shell"
    assert [printed(nb.cells[i]).strip() for i in (2, 3, 4)] == ["MARK", "SEEN", "42"]


def test_threads_of_one_process_share_its_servers_one_sandbox_at_a_time():
    from concurrent.futures import ThreadPoolExecutor, wait

    threads = ThreadPoolExecutor(3)  # a Dask worker started with three threads
    runs = [threads.submit(run, f"print({i} * 7)") for i in range(3)]
    finished, _ = wait(runs, timeout=120)
    threads.shutdown(wait=False)
    assert len(finished) == 3, "a thread read the fork server's reply that another waited for"
    done = [r.result() for r in runs]
    assert [(d.outcome, printed(nb.cells[0]).strip()) for d, nb in done] == [("ok", "0"), ("ok", "7"), ("ok", "14")]


def test_a_kernel_that_kills_itself_costs_its_student_only_and_a_dead_server_comes_back():
    crashed, _ = run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    assert crashed.outcome == "kernel_died"
    for module in ("autograder.sandbox.kernel_server", "autograder.sandbox.executor"):
        forkserver._servers[module].process.kill()
        forkserver._servers[module].process.wait()
    after, nb = run(LOOK)
    assert after.outcome == "ok" and json.loads(printed(nb.cells[0]))["preloaded"]


def test_the_kernel_server_refuses_a_uid_outside_the_sandbox_range():
    from autograder.sandbox.kernel_server import _checked

    request = {"uid": 0, "gid": 0, "procs": []}
    with pytest.raises(ValueError):
        _checked(request)
    with pytest.raises(ValueError):
        _checked({**request, "uid": 1 << 30, "gid": 1 << 30, "procs": ["/etc/passwd"]})


def test_a_worker_s_servers_are_its_own():
    """A forked worker holds none of its parent's servers; it reaches the ones its parent shares by address."""
    run("print('servers up')")  # this process's own servers
    forkserver.share("autograder.sandbox.executor", dict(os.environ))
    try:
        address = forkserver._shared["autograder.sandbox.executor"].address
        assert set(forkserver._servers) == {"autograder.sandbox.kernel_server", "autograder.sandbox.executor"}
        pid = os.fork()
        if pid == 0:
            inherited = forkserver._inherited.get("autograder.sandbox.executor", {}).get("address")
            os._exit(0 if (forkserver._servers, forkserver._shared, inherited) == ({}, {}, address) else 1)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    finally:
        forkserver.unshare()


def test_a_kernel_server_that_cannot_start_is_one_line_then_fresh_kernels(tmp_path, monkeypatch, capsys):
    from autograder.sandbox import bubblewrap, servers

    broken = tmp_path / "broken"
    (broken / "torch").mkdir(parents=True)
    (broken / "torch" / "__init__.py").write_text("raise ImportError('no torch for the server')\n")
    env = {**bubblewrap.kernel_env(), "PYTHONPATH": str(broken)}
    monkeypatch.setattr(servers, "kernel_env", lambda: env)
    monkeypatch.setattr(servers, "_no_kernel_server", [])
    first, nb = run(LOOK)
    second, _ = run("print('again')")
    assert first.outcome == second.outcome == "ok"
    assert not json.loads(printed(nb.cells[0]))["preloaded"] and json.loads(printed(nb.cells[0]))["uid"] > 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "fresh kernel" in line]
    assert len(lines) == 1 and "did not start" in lines[0]


def test_the_kernel_server_imports_heavy_modules_for_the_notebooks_that_use_them():
    looks = "import sys\nprint(['torch.' '_dynamo' in sys.modules, 'torch.distributed.' 'tensor' in sys.modules])"
    for module in ("autograder.sandbox.kernel_server", "autograder.sandbox.executor"):  # servers that never had the request
        running = forkserver._servers.pop(module, None)
        if running is not None:
            running.close()
    _, plain = run(looks)
    _, comparing = run(f"# assert_close below\n{looks}")
    _, compiling = run(f"# torch.compile below\n{looks}")  # torch._dynamo imports the other too
    _, after = run(looks)
    assert [printed(nb.cells[0]).strip() for nb in (plain, comparing, compiling, after)] == [
        "[False, False]", "[False, True]", "[True, True]", "[True, True]"]


def _notebook(source):
    return nbformat.writes(new_notebook(cells=[new_code_cell(source, metadata={"nbgrader": {"solution": True,
                                                                                       "grade_id": "a0"}})]))


def _servers_of_this_worker():
    return {module: type(running).__name__ for module, running in forkserver._servers.items()}


def test_a_pool_s_workers_share_its_servers_and_their_kernels_stay_apart():
    from autograder.grading.scheduling import worker_pool
    from autograder.sandbox.run import run_in_sandbox

    with worker_pool(2) as pool:
        left = pool.submit(run_in_sandbox, _notebook(LEAVE_TRACES), Limits())
        beside = pool.submit(run_in_sandbox, _notebook(LOOK), Limits())
        after = pool.submit(run_in_sandbox, _notebook(LOOK), Limits())
        kinds = pool.submit(_servers_of_this_worker).result()
        runs = [left.result(), beside.result(), after.result()]
    assert kinds == {"autograder.sandbox.executor": "Connection", "autograder.sandbox.kernel_server": "Connection"}
    assert [r.outcome for r in runs] == ["ok"] * 3
    for run in runs[1:]:
        seen = json.loads(printed(run.notebook().cells[0]))
        assert seen["preloaded"] and seen["traces"] == [False] * 5 and seen["seqpackets"] == []
        assert len(seen["pids"]) <= 4 and seen["uid"] == run.usage.uid
    assert len({r.usage.uid for r in runs[:2]}) == 2  # side by side: two uids


def test_a_shared_server_that_died_is_replaced_by_the_worker_s_own():
    from autograder.grading.scheduling import worker_pool
    from autograder.sandbox.run import run_in_sandbox

    with worker_pool(1) as pool:
        pool.submit(int).result()
        for running in forkserver._shared.values():
            running.process.kill()
            running.process.wait()
        done = pool.submit(run_in_sandbox, _notebook(LOOK), Limits()).result()
        kinds = pool.submit(_servers_of_this_worker).result()
    assert done.outcome == "ok" and json.loads(printed(done.notebook().cells[0]))["preloaded"]
    assert kinds == {"autograder.sandbox.executor": "ForkServer", "autograder.sandbox.kernel_server": "ForkServer"}


def test_a_shared_server_takes_connections_from_the_grader_s_user_only():
    forkserver.share("autograder.sandbox.executor", dict(os.environ))
    shared = forkserver._shared["autograder.sandbox.executor"]
    os.chmod(shared.folder, 0o755)  # past the folder and the socket's mode, the server checks who connects
    os.chmod(shared.address, 0o777)
    pid = os.fork()
    if pid == 0:
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        try:
            forkserver.Connection("autograder.sandbox.executor", {}, shared.address).ready()
        except forkserver.ServerGone:
            os._exit(0)
        os._exit(1)
    try:
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    finally:
        forkserver.unshare()
