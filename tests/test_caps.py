"""Per-student caps (issues #16, #22): total memory, processes, CPU, bytes written; refusing where uncapped.

The attacks are mild on purpose (a few hundred MB, a few dozen processes, a few MB over small
caps), so this file is safe on any CI machine; it skips where the machine cannot cap.
"""
import csv
import os
import re
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from helpers import GOOD_TRIPLE, submit_fx as submit

from autograder.sandbox.limits import MB, Limits
from autograder.sandbox.probe import mechanism

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

MEMORY_MB, MAX_PROCS, DISK_MB, WORKERS = 600, 40, 64, 2
LIMITS = Limits(memory_mb=MEMORY_MB, max_procs=MAX_PROCS, disk_mb=DISK_MB)

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


def attacked_batch(test):
    """A test of the attacked batch: it needs the caps, and runs alone (make test's second pass): its
    Watch counts every student cgroup on the host."""
    return pytest.mark.sandbox(pytest.mark.alone(test))


needs_bwrap = pytest.mark.sandbox(caps=False)  # tests of the refusal where caps are missing

# Four children of 250 MB each: 1000 MB against a 600 MB total (each alone is within RLIMIT_DATA).
HOARD = GOOD_TRIPLE + """
import multiprocessing, time
def hold(n):
    block = bytearray(n)
    time.sleep(6)
children = [multiprocessing.Process(target=hold, args=(250 * 2**20,)) for _ in range(4)]
for child in children:
    child.start()
for child in children:
    child.join(15)
print('exit codes', [child.exitcode for child in children])
"""
# A few dozen processes over the cap; the cell cleans up after itself, so the kernel goes on.
FORK = GOOD_TRIPLE + f"""
import subprocess
started = []
for _ in range({MAX_PROCS + 30}):
    try:
        started.append(subprocess.Popen(['sleep', '30']))
    except OSError as error:
        refused = error
for child in started:
    child.kill()
    child.wait()
print('started', len(started), 'refused', type(refused).__name__)
"""


def fill(path, catch):
    """Answer code writing DISK_MB + 8 MB into ``path`` (in the working folder when relative)."""
    write = (f"with open({path!r}, 'wb') as f:\n"
             f"    for _ in range({DISK_MB + 8}):\n"
             "        f.write(b'x' * 2**20)\n")
    if catch:
        write = "try:\n" + "".join("    " + line + "\n" for line in write.splitlines()) + \
                "except OSError as error:\n    print('stopped:', error)\n"
    return GOOD_TRIPLE + "\nimport os\nprint('in', os.getcwd())\n" + write


def cgroups_left():
    """Students' cgroups still present under the bases this machine uses."""
    return [p for _, base in mechanism().bases.values() for p in base.glob("finite-*")
            if not p.name.startswith("finite-grader")]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("caps")
    course = make_course(base / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    return course


def grade(course, submitted, out, *flags):
    return run_cli("--course", str(course), "grade", str(submitted), "--assignment", ASSIGNMENT,
                   "--out", str(out), "--workers", str(WORKERS), "--cell-timeout", "30", "--timeout", "60",
                   "--memory-mb", str(MEMORY_MB), "--max-procs", str(MAX_PROCS), "--disk-mb", str(DISK_MB),
                   *flags, timeout=600)


def rows(out):
    return {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}


def feedback(out, student):
    return (out / "feedback" / student / f"{ASSIGNMENT}.html").read_text()


class Watch(threading.Thread):
    """Peak memory and task count of all students' cgroups together, as the kernel accounts them.

    Only this batch's: on cgroup v1 the pids (and cpu) hierarchies may be shared with other
    graders running on the machine, so a group counts when its name is also in the memory
    hierarchy under this process's own memory cgroup (``names``: every such name seen)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop, self.memory, self.tasks, self.names = threading.Event(), 0, 0, set()

    def run(self):
        bases = mechanism().bases
        while not self.stop.wait(0.05):
            memory = tasks = 0
            ours = {g.name for g in bases["memory"][1].glob("finite-*-*")} if "memory" in bases else None
            self.names |= ours or set()
            for controller, (version, base) in bases.items():
                for group in base.glob("finite-*-*"):
                    if ours is not None and group.name not in ours:
                        continue
                    if controller == "memory":
                        name = "memory.usage_in_bytes" if version == 1 else "memory.current"
                        memory += int(_read(group / name) or 0)
                    elif controller == "pids":
                        tasks += int(_read(group / "pids.current") or 0)
            self.memory, self.tasks = max(self.memory, memory), max(self.tasks, tasks)


def _read(path):
    try:
        return path.read_text().strip()
    except OSError:
        return ""


@pytest.fixture(scope="module")
def attacked(course, tmp_path_factory):
    """One batch: an honest student beside one attacker per cap (graded once for the module)."""
    base = tmp_path_factory.mktemp("attacked")
    before = {"cgroups": set(cgroups_left()), "sockets": set(Path("/dev/shm").glob("finite-kernel-*"))}
    submitted, out = base / "submitted", base / "out"
    submit(course, submitted, "honest")
    submit(course, submitted, "hoarder", triple=HOARD)
    submit(course, submitted, "forker", triple=FORK)
    submit(course, submitted, "filler", triple=fill("big.bin", catch=True))
    submit(course, submitted, "tmpfiller", triple=fill("/tmp/big.bin", catch=False))
    watch = Watch()
    watch.start()
    start = time.monotonic()
    done = grade(course, submitted, out)
    watch.stop.set()
    watch.join()
    return dict(done=done, out=out, course=course, rows=rows(out) if (out / "grades.csv").exists() else {},
                watch=watch, seconds=time.monotonic() - start, before=before)


@attacked_batch
def test_batch_with_attackers_completes_and_the_honest_student_is_graded_as_before(attacked):
    assert attacked["done"].returncode == 0, attacked["done"].stderr
    assert "cap not enforced" not in attacked["done"].stderr
    honest = attacked["rows"]["honest"]
    assert (honest["status"], honest["test_double"], honest["test_triple"]) == ("graded", "2", "3")


@attacked_batch
@pytest.mark.parametrize("student, note", [
    ("hoarder", f"used more than {MEMORY_MB} MB in total"),
    ("forker", f"started more than {MAX_PROCS} processes"),
    ("filler", f"wrote more than {DISK_MB} MB"),
    ("tmpfiller", f"wrote more than {DISK_MB} MB"),
])
def test_attack_over_a_cap_ends_as_resource_limit_and_earlier_tests_keep_their_scores(attacked, student, note):
    row = attacked["rows"][student]
    assert row["status"] == "resource_limit", feedback(attacked["out"], student)
    assert row["test_double"] == "2"  # ran before the attack (in the triple answer cell)
    assert note in feedback(attacked["out"], student)


@attacked_batch
def test_kernel_survives_a_refused_fork_and_a_full_disk(attacked):
    for student in ("forker", "filler", "tmpfiller"):
        assert attacked["rows"][student]["test_triple"] == "3", feedback(attacked["out"], student)
    # the capped tmpfs, not the host (the autograded notebook, which the instructor sees: feedback
    # shows nothing an answer cell printed after the first test cell)
    executed = attacked["course"] / "autograded" / "filler" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert "in /tmp/work" in executed.read_text()


@attacked_batch
def test_the_host_stays_within_the_caps_times_workers(attacked):
    assert 0 < attacked["watch"].memory <= WORKERS * MEMORY_MB * MB
    assert 0 < attacked["watch"].tasks <= WORKERS * MAX_PROCS
    # only this batch's: a run killed elsewhere (a Dask worker in another test) may leave empty ones
    left = set(cgroups_left()) - attacked["before"]["cgroups"]
    assert {p for p in left if p.name in attacked["watch"].names or not attacked["watch"].names} == set()
    assert set(Path("/dev/shm").glob("finite-kernel-*")) - attacked["before"]["sockets"] == set()  # removed


@needs_bwrap  # without it the kernel could not drop root either: one more line
def test_missing_caps_are_listed_and_grading_refused(course, tmp_path, monkeypatch):
    monkeypatch.setenv("FINITE_CGROUP_ROOT", str(tmp_path / "no-cgroups"))
    submit(course, tmp_path / "submitted", "honest")
    done = grade(course, tmp_path / "submitted", tmp_path / "out")
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("cap not enforced")]
    assert [line.split()[3] for line in lines] == ["memory:", "processes:", "cpu:"], done.stderr
    assert re.search(r"^error: .*--allow-uncapped", done.stderr, re.M)
    assert not (tmp_path / "out").exists()


@needs_bwrap
def test_bubblewrap_without_size_is_a_missing_disk_cap(course, tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text('#!/bin/sh\ncase "$*" in *--version*) echo bubblewrap 0.4.0;;\n'
                                '*--size*) echo "bwrap: Unknown option --size" >&2; exit 1;; esac\n')
    (fake / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    submit(course, tmp_path / "submitted", "honest")
    done = grade(course, tmp_path / "submitted", tmp_path / "out")
    assert done.returncode == 2
    assert re.search(r"^cap not enforced: disk: .*bubblewrap 0\.4\.0 cannot size a tmpfs", done.stderr, re.M)


@needs_bwrap
def test_allow_uncapped_grades_anyway(course, tmp_path, monkeypatch):
    monkeypatch.setenv("FINITE_CGROUP_ROOT", str(tmp_path / "no-cgroups"))
    submit(course, tmp_path / "submitted", "honest")
    done = grade(course, tmp_path / "submitted", tmp_path / "out", "--allow-uncapped")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("cap not enforced") == 3
    honest = rows(tmp_path / "out")["honest"]
    assert (honest["status"], honest["score"]) == ("graded", "5")
