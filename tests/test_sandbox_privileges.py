"""The kernel runs unprivileged, sees only the /etc files it needs, and is held to its CPU cap
(issue #22, items 1 and 2). Skips where the machine cannot run the sandbox as root with cgroups."""
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.sandbox.bubblewrap import bwrap_command, read_only_paths
from autograder.sandbox.identity import new_identity
from autograder.sandbox.limits import Limits
from autograder.sandbox.probe import mechanism, runs_unprivileged

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

CANARY_TEXT = "finite-canary-7f3a root only"


@pytest.fixture
def canary():
    """A root-only (0600) file in /etc, removed afterwards."""
    path = Path("/etc") / f"finite-canary-{os.getpid()}"
    path.write_text(CANARY_TEXT)
    path.chmod(0o600)
    yield path
    path.unlink(missing_ok=True)


def run(*sources, limits=Limits()):
    from autograder.sandbox.run import run_in_sandbox

    nb = new_notebook(cells=[new_code_cell(s, metadata={"nbgrader": {"solution": True, "grade_id": f"a{i}"}})
                             for i, s in enumerate(sources)])
    done = run_in_sandbox(nbformat.writes(nb), limits)
    return done, nbformat.reads(done.executed, as_version=4)


def texts(cell):
    return "".join(o.get("text", "") or json.dumps(o.get("data", {})) + o.get("ename", "") + o.get("evalue", "")
                   for o in cell.outputs)


@pytest.fixture
def bound_canary():
    """A root-only (0600) file inside the venv, which the sandbox binds whole: only the uid drop
    stands between the kernel and it."""
    path = Path(sys.prefix).resolve() / f"finite-canary-{os.getpid()}"
    path.write_text(CANARY_TEXT)
    path.chmod(0o600)
    yield path
    path.unlink(missing_ok=True)


@pytest.mark.sandbox(as_root=True)  # where the grader is not root, there is nothing to drop
def test_the_kernel_is_not_root_and_a_root_only_canary_is_unreadable_even_when_bound(bound_canary):
    canary = bound_canary
    assert runs_unprivileged()
    assert any(path == canary.parent or path in canary.parents for path in read_only_paths())
    done, nb = run(
        "import os, pwd\nprint('uid', os.getuid(), os.geteuid(), os.getgid(), os.getgroups(), pwd.getpwuid(os.getuid()).pw_name)",
        f"print(open({str(canary)!r}).read())",
        f"import subprocess\nprint(subprocess.run(['cat', {str(canary)!r}], capture_output=True, text=True))",
        "print(open('/proc/self/status').read())",
    )
    assert done.outcome == "ok"
    uid_line = texts(nb.cells[0]).split()
    assert uid_line[:2] == ["uid", str(done.usage.uid)] and done.usage.uid not in (0, -1)
    assert "learner" in uid_line and uid_line[3] == uid_line[1]
    assert "PermissionError" in texts(nb.cells[1])
    assert "Permission denied" in texts(nb.cells[2])
    assert CANARY_TEXT not in done.executed
    status = texts(nb.cells[3])
    for line in ("CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000",
                 "NoNewPrivs:\t1"):
        assert line in status


def test_only_the_needed_files_of_etc_are_there(canary):
    done, nb = run("import os\nprint(sorted(os.listdir('/etc')))",
                   "print(open('/etc/passwd').read())")
    listed = texts(nb.cells[0])
    for absent in ("shadow", "gshadow", "ssh", "sudoers", "ssl", "pip.conf", canary.name):
        assert f"'{absent}'" not in listed, listed
    for present in ("passwd", "group", "ld.so.cache", "nsswitch.conf"):
        if (Path("/etc") / present).exists():
            assert f"'{present}'" in listed
    if runs_unprivileged():  # the sandbox's own passwd: no host accounts
        assert "learner:x:" in texts(nb.cells[1]) and ":x:1000:" not in texts(nb.cells[1])


def test_the_command_line_drops_privileges_inside_after_the_binds(tmp_path):
    identity = new_identity(tmp_path)
    cmd = bwrap_command(tmp_path, Limits(), ["python"], identity=identity)
    drop = cmd.index(shutil.which("setpriv"))
    assert cmd[drop - 1] == "--" and cmd[drop + 1] == f"--reuid={identity.uid}"
    assert {"--clear-groups", "--no-new-privs", "--bounding-set=-all"} <= set(cmd[drop:])
    assert cmd[cmd.index("--cap-drop") + 1] == "ALL"
    binds = {cmd[i + 2]: cmd[i + 1] for i, a in enumerate(cmd) if a == "--ro-bind"}
    assert binds["/etc/passwd"] == str(identity.etc / "passwd")
    assert "/etc" not in binds and "/etc/shadow" not in binds


BUSY = """
import multiprocessing, os, resource, time
def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
start, cpu = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
children = [multiprocessing.Process(target=spin, args=(20,)) for _ in range(8)]
for child in children:
    child.start()
for child in children:
    child.join()
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": time.monotonic() - start,
                  "cpu": used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime}))
"""


class Quotas(threading.Thread):
    """The CPU quotas of the students' cgroups, as the kernel holds them, seen while they run."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop, self.seen = threading.Event(), set()

    def run(self):
        version, base = mechanism().bases["cpu"]
        while not self.stop.wait(0.1):
            for group in base.glob("finite-*-*"):
                try:
                    if version == 1:
                        quota = int((group / "cpu.cfs_quota_us").read_text())
                        period = int((group / "cpu.cfs_period_us").read_text())
                    else:
                        quota, period = (group / "cpu.max").read_text().split()
                        quota, period = (-1 if quota == "max" else int(quota)), int(period)
                except (OSError, ValueError):
                    continue
                self.seen.add(quota / period if quota > 0 else None)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join()


@pytest.mark.skipif("cpu" not in mechanism().bases, reason="no CPU controller here")
def test_eight_busy_processes_get_one_core_in_total():
    start = time.monotonic()
    with Quotas() as quotas:
        done, nb = run("import json" + BUSY)
    wall = time.monotonic() - start
    assert done.outcome == "ok"
    busy = json.loads(nb.cells[0].outputs[-1].text)
    print(f"8 busy processes for {busy['wall']:.1f} s: {busy['cpu']:.1f} s CPU ({busy['cpu'] / busy['wall']:.2f} cores); "
          f"whole run: {done.usage.cpu_seconds:.1f} s CPU in {wall:.1f} s wall "
          f"({done.usage.cpu_seconds / wall:.2f}x), throttled in {done.usage.cpu_throttled} periods")
    assert 1.0 in quotas.seen  # the cgroup held a quota of one core (other groups: other tests' runs)
    assert busy["cpu"] <= 1.1 * busy["wall"]  # one core, however many the machine has
    if busy["cpu"] >= 0.8 * busy["wall"]:  # the machine had a core to spare: the quota is what held it
        assert done.usage.cpu_throttled > 0
    if "cpuacct" in mechanism().bases or mechanism().bases["cpu"][0] == 2:
        assert 0.5 * busy["cpu"] <= done.usage.cpu_seconds <= 1.25 * wall


@pytest.mark.skipif("cpu" not in mechanism().bases, reason="no CPU controller here")
def test_half_a_core_is_half_a_core():
    with Quotas() as quotas:
        done, nb = run("import json" + BUSY.replace("range(8)", "range(2)").replace("(20,)", "(8,)"),
                       limits=Limits(cpus=0.5))
    busy = json.loads(nb.cells[0].outputs[-1].text)
    assert 0.5 in quotas.seen
    assert busy["cpu"] <= 0.6 * busy["wall"], busy


@pytest.mark.skipif(os.geteuid() != 0, reason="the grader is not root here: nothing to drop")
def test_a_root_grader_that_cannot_drop_lists_it_as_a_missing_cap(tmp_path):
    import subprocess
    import sys

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "setpriv").write_text("#!/bin/sh\necho 'setpriv: setresuid failed: Operation not permitted' >&2\nexit 1\n")
    (fake / "setpriv").chmod(0o755)
    done = subprocess.run([sys.executable, "-c", "from autograder.sandbox.probe import missing_caps\n"
                           "from autograder.sandbox.limits import Limits\nprint(missing_caps(Limits()))"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert "user: the kernel would run as root: cannot drop to an unprivileged uid" in done.stdout, done
