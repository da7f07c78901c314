"""Sandboxed batch grading, attacked by hostile submissions (each test names its attack)."""
import csv
import json
import re
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, run_cli
from autograder.cases import with_answers
from autograder.grading.autograded import KEY_LINE
from helpers import GOOD_DOUBLE, GOOD_TRIPLE, release_of, write_submission

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, SECRET_TEST, make_course  # noqa: E402

WRONG_TRIPLE = "def triple(x):\n    return 3 + x"
DAEMON_MARK = str(900_000 + os.getpid() % 99_999)  # unique per run: parallel runs must not see each other's
# Every later cell reports success: errors cleared from the result, tracebacks never shown.
PATCH_RUN_CELL = """
_shell = get_ipython()
_run = _shell.run_cell
def _lying_run_cell(*args, **kwargs):
    result = _run(*args, **kwargs)
    result.error_in_exec = None
    result.error_before_exec = None
    return result
_shell.run_cell = _lying_run_cell
_run_async = _shell.run_cell_async
async def _lying_run_cell_async(*args, **kwargs):
    result = await _run_async(*args, **kwargs)
    result.error_in_exec = None
    result.error_before_exec = None
    return result
_shell.run_cell_async = _lying_run_cell_async
_shell.showtraceback = lambda *a, **k: None
"""
ALWAYS_EQUAL = """class _Yes:
    def __eq__(self, other): return True
    __ne__ = lambda self, other: False
    def __bool__(self): return True
def triple(x):
    return _Yes()"""
# Publishes, in every later cell, the observation a right answer would make there.
FORGE = """from IPython.display import publish_display_data
from fplab.observe import MIME, encode
get_ipython().events.register('post_run_cell', lambda result: publish_display_data(
    {MIME: {'name': 'triple(-5)', 'value': encode(-15)}}))"""


# Hidden tests the kernel saw, carried out in forms no text filter can guess: a display created
# before the tests and updated (shifted by one) from inside double while test_double runs; the
# source of every cell so far, XOR-ed and as an image, printed by the next answer cell.
ENCODE_VIA_DISPLAY_UPDATE = """from IPython.display import display
_handle = display("placeholder", display_id=True)
def double(x):
    _handle.update("".join(chr(ord(c) + 1) for c in get_ipython().user_ns["In"][-1]))
    return x + x"""
ENCODE_AS_XOR_AND_IMAGE = GOOD_TRIPLE + """
_src = "\\n".join(get_ipython().user_ns["In"])
print(bytes(b ^ 0x5A for b in _src.encode()).hex())
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt, numpy as np
plt.imshow(np.frombuffer(_src.encode()[:1024].ljust(1024, b" "), dtype=np.uint8).reshape(32, 32))
plt.show()"""


def attempts(paths, action):
    """Answer-cell code that tries ``action`` on every path and prints blocked/LEAKED for each."""
    return (
        "for _p in %r:\n"
        "    try:\n"
        "        %s\n"
        "        print('LEAKED', _p)\n"
        "    except Exception as _e:\n"
        "        print('blocked', type(_e).__name__)\n" % (list(map(str, paths)), action)
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A fixture course, a class of hostile submissions, and one graded batch of them."""
    base = tmp_path_factory.mktemp("grading")
    course = make_course(base / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    release = release_of(course)
    submitted, out = base / "submitted", base / "out"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    own = lambda student: submitted / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"  # noqa: E731
    secret_places = [course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", course / "gradebook.db",
                     own("honest"), course / "nbgrader_config.py"]
    write_places = [out / "grades.csv", out / ".results" / "honest.json", own("writer"), own("honest"),
                    course / "source" / "planted.txt", ROOT / "planted.txt"]

    def submit(student, cells=None, edit=None):
        nb = with_answers(release, cells or {})
        if edit:
            edit(nb)
        write_submission(submitted, student, nb)

    def drop_test(grade_id):
        return lambda nb: nb.cells.remove(next(c for c in nb.cells
                                               if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id))

    def edit_test(grade_id, source, cell_type="code"):
        def edit(nb):
            index = next(i for i, c in enumerate(nb.cells)
                         if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
            old = nb.cells[index]
            new = nbformat.v4.new_markdown_cell(source) if cell_type == "markdown" else old
            new.source, new.metadata = source, old.metadata
            nb.cells[index] = new
        return edit

    submit("honest", {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE})
    submit("blank")
    submit("reader", {"double": GOOD_DOUBLE + "\n" + attempts(secret_places, "open(_p, 'rb').read(1)"),
                      "triple": GOOD_TRIPLE})
    submit("writer", {"double": GOOD_DOUBLE + "\n" + attempts(write_places, "open(_p, 'w').write('0')"),
                      "triple": GOOD_TRIPLE})
    submit("networker", {"double": GOOD_DOUBLE + "\n" + attempts(
        [port], "socket.create_connection(('127.0.0.1', _p), timeout=2)").replace("for _p", "import socket\nfor _p"),
        "triple": GOOD_TRIPLE})
    submit("daemon", {"double": GOOD_DOUBLE + "\nimport subprocess\nsubprocess.Popen(['sleep', "
                      f"'{DAEMON_MARK}'], start_new_session=True)", "triple": GOOD_TRIPLE})
    submit("looper", {"double": "while True:\n    pass", "triple": GOOD_TRIPLE})
    submit("stubborn", {"double": "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                        "while True:\n    time.sleep(0.1)", "triple": GOOD_TRIPLE})
    submit("hog", {"double": "hog = bytearray(6 * 1024**3)\n" + GOOD_DOUBLE, "triple": GOOD_TRIPLE})
    submit("quitter", {"double": GOOD_DOUBLE + "\nimport os\nos._exit(0)", "triple": GOOD_TRIPLE})
    submit("deleter", {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE}, edit=drop_test("test_double"))
    submit("editor", {"double": GOOD_DOUBLE, "triple": WRONG_TRIPLE}, edit=edit_test("test_triple", "pass"))
    submit("retyper", {"double": GOOD_DOUBLE, "triple": WRONG_TRIPLE},
           edit=edit_test("test_triple", "nothing to see", "markdown"))
    submit("patcher", {"double": GOOD_DOUBLE + "\n" + PATCH_RUN_CELL, "triple": WRONG_TRIPLE})
    submit("rewriter", {"double": GOOD_DOUBLE + "\nget_ipython().input_transformers_post.append("
                        "lambda lines: ['pass\\n'])", "triple": GOOD_TRIPLE})
    submit("equaliser", {"double": GOOD_DOUBLE, "triple": ALWAYS_EQUAL})
    submit("forger", {"double": GOOD_DOUBLE + "\n" + FORGE, "triple": WRONG_TRIPLE})
    submit("silencer", {"double": GOOD_DOUBLE + "\nget_ipython().showtraceback = lambda *a, **k: None",
                        "triple": WRONG_TRIPLE})
    submit("spy", {"double": GOOD_DOUBLE + "\nseen = []\nget_ipython().events.register("
                   "'pre_run_cell', lambda info: seen.append(info.raw_cell))",
                   "triple": GOOD_TRIPLE + "\nprint('\\n'.join(seen))\nraise ValueError(seen[-2])"})
    submit("encoder", {"double": ENCODE_VIA_DISPLAY_UPDATE, "triple": ENCODE_AS_XOR_AND_IMAGE})
    submit("importer", {"double": "open('mymod.py', 'w').write('def double(x):\\n    return x + x\\n')\n"
                                  "from mymod import double", "triple": GOOD_TRIPLE})  # code from a file it wrote
    submit("bloated", {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE},  # 300 KB of never-run statements
           edit=lambda nb: nb.cells.append(nbformat.v4.new_markdown_cell("x = 1\n" * 50_000)))
    submit("copier", {"double": f"{GOOD_DOUBLE}\n### BEGIN HIDDEN TESTS\n{SECRET_TEST}\n### END HIDDEN TESTS",
                      "triple": GOOD_TRIPLE})  # a notebook that came from the instructor's source
    for student, place in (("flat", f"{ASSIGNMENT}.ipynb"), ("renamed", f"{ASSIGNMENT}/{ASSIGNMENT} (1).ipynb")):
        submit(student, {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE})
        own(student).rename(submitted / student / place)
    (submitted / "garbled" / ASSIGNMENT).mkdir(parents=True)
    (submitted / "garbled" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text('{"cells": [')
    (submitted / "hollow" / ASSIGNMENT).mkdir(parents=True)
    (submitted / "hollow" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text("{}")
    (submitted / "absent").mkdir()
    submit("bad name+1", {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE})

    before = {p: p.read_bytes() for p in submitted.rglob("*") if p.is_file()}
    done = run_cli("--course", str(course), "grade", str(submitted), "--assignment", ASSIGNMENT,
                   "--out", str(out), "--workers", "2", "--cell-timeout", "10", "--timeout", "60",
                   "--memory-mb", "1500")
    server.close()
    rows = {}
    if (out / "grades.csv").exists():
        rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}
    return dict(course=course, submitted=submitted, out=out, done=done, rows=rows, before=before)


def feedback(world, student):
    return (world["out"] / "feedback" / student / f"{ASSIGNMENT}.html").read_text()


def printed(world, student):
    """What the student's answer cells printed, as shown in their feedback."""
    return "".join(re.findall(r"<pre class=\"out\">(.*?)</pre>", feedback(world, student), re.S))


def test_batch_completes_with_exit_0_and_a_row_per_student(world):
    assert world["done"].returncode == 0, world["done"].stderr
    assert len(world["rows"]) == 29
    assert list(next(iter(world["rows"].values()))) == [
        "student", "assignment", "status", "score", "max_score", "test_double", "test_triple", "graded_by_hand",
        "notes", "review"]
    assert (world["out"] / "summary.png").read_bytes()[:4] == b"\x89PNG"


def test_honest_and_blank_students(world):
    assert world["rows"]["honest"]["status"] == "graded" and world["rows"]["honest"]["score"] == "5"
    assert world["rows"]["blank"]["status"] == "graded" and world["rows"]["blank"]["score"] == "0"


def test_attack_reading_source_gradebook_and_other_submissions(world):
    page = printed(world, "reader")
    assert page.count("blocked") == 4 and "LEAKED" not in page
    assert world["rows"]["reader"]["score"] == "5"


def test_attack_writing_results_submissions_and_course(world):
    # Inside the sandbox a write may land in its private /tmp and vanish with it; what matters
    # is the host: nothing planted, results and submissions intact.
    assert not (world["course"] / "source" / "planted.txt").exists() and not (ROOT / "planted.txt").exists()
    honest = json.loads((world["out"] / ".results" / "honest.json").read_text())
    assert honest["status"] == "graded" and sum(honest["scores"].values()) == 5
    assert world["rows"]["honest"]["score"] == "5" and world["rows"]["writer"]["score"] == "5"
    assert "LEAKED " + str(world["out"]) not in printed(world, "writer")


def test_attack_network_to_host_loopback(world):
    page = printed(world, "networker")
    assert page.count("blocked") == 1 and "LEAKED" not in page


def test_attack_daemon_outliving_the_run(world):
    leftovers = []
    for proc in Path("/proc").iterdir():
        try:
            if DAEMON_MARK in (proc / "cmdline").read_bytes().decode(errors="replace"):
                leftovers.append(proc.name)
        except OSError:
            continue
    assert leftovers == []
    assert world["rows"]["daemon"]["score"] == "5"


def test_attack_infinite_loop_hits_the_cell_limit_and_grading_goes_on(world):
    row = world["rows"]["looper"]
    assert row["status"] == "timeout" and row["test_double"] == "0" and row["test_triple"] == "3"


def test_attack_ignoring_interrupts_hits_the_notebook_limit(world):
    row = world["rows"]["stubborn"]
    assert row["status"] == "timeout" and row["score"] == "0"


def test_attack_exhausting_memory(world):
    row = world["rows"]["hog"]
    assert row["status"] == "resource_limit" and row["test_triple"] == "3"


def test_attack_killing_the_kernel_scores_unrun_tests_zero(world):
    row = world["rows"]["quitter"]
    assert row["status"] == "kernel_died" and row["score"] == "0"
    assert "did not run" in feedback(world, "quitter")


@pytest.mark.parametrize("student, note", [("deleter", "deleted"), ("editor", "modified"),
                                            ("retyper", "changed from code to markdown")])
def test_attack_tampering_with_locked_cells(world, student, note):
    row = world["rows"][student]
    expected = {"deleter": ("2", "3"), "editor": ("2", "0"), "retyper": ("2", "0")}[student]
    assert (row["test_double"], row["test_triple"]) == expected
    assert note in feedback(world, student)


def test_attack_silencing_tracebacks_does_not_turn_failures_into_passes(world):
    assert world["rows"]["silencer"]["test_triple"] == "0"


def test_attack_capturing_and_printing_hidden_tests(world):
    page = feedback(world, "spy")
    assert SECRET_TEST not in page and "hidden check of double" not in page
    assert "ran after the first test cell" in page  # triple's output is not shown at all


def test_attack_encoding_hidden_tests_in_display_updates_xor_or_images_shows_nothing(world):
    page = feedback(world, "encoder")
    shifted = "".join(chr(ord(c) + 1) for c in "hidden check of double")
    xored = bytes(b ^ 0x5A for b in b"hidden check of double").hex()
    assert shifted not in page and xored not in page and "<img" not in page
    assert "placeholder" in page  # what double's cell showed before any test ran
    assert world["rows"]["encoder"]["score"] == "5"


@pytest.mark.parametrize("student, status", [("garbled", "unreadable"), ("hollow", "unreadable"),
                                             ("absent", "missing")])
def test_broken_submissions_are_labelled_not_blank(world, student, status):
    assert world["rows"][student]["status"] == status
    assert status in feedback(world, student)


def test_a_notebook_holding_source_text_goes_to_a_person_unrun(world):
    row = world["rows"]["copier"]
    assert (row["status"], row["score"]) == ("review", "0")
    assert "holds source text: a solution or hidden-test marker" in row["notes"]
    page = feedback(world, "copier")
    assert "Status:</strong> review" in page and SECRET_TEST not in page and "BEGIN HIDDEN" not in page
    shown = nbformat.read(world["course"] / "autograded" / "copier" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    said = {c.metadata.get("nbgrader", {}).get("grade_id"): "".join(o.get("text", "") for o in c.outputs)
            for c in shown.cells if c.cell_type == "code" and c.outputs}
    # each test cell says why it needs a person; the answer it grades carries the key beside it
    assert sorted(said) == ["double", "test_double", "test_triple", "triple"], sorted(said)
    assert all("needs manual grading: status review: holds source text" in said[t] for t in ("test_double", "test_triple"))
    assert all(said[a].startswith(KEY_LINE) for a in ("double", "triple")) and "return 3 * x" in said["triple"]


def test_a_module_the_notebook_wrote_cannot_be_imported(world):
    row = world["rows"]["importer"]
    assert (row["test_double"], row["test_triple"]) == ("0", "3"), row


def test_a_notebook_larger_than_grading_reads_is_refused_unparsed(world):
    row = world["rows"]["bloated"]
    assert (row["status"], row["score"]) == ("refused", "0")
    assert "holds more than 100 KB of text, more than grading reads" in row["notes"]


def test_submissions_are_never_modified(world):
    after = {p: p.read_bytes() for p in world["submitted"].rglob("*") if p.is_file()}
    assert after == world["before"]


def test_feedback_never_shows_hidden_tests_or_solutions(world):
    source = (world["course"] / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    assert "return 2 * x" in source
    for page in (world["out"] / "feedback").rglob("*.html"):
        text = page.read_text()
        assert SECRET_TEST not in text and "hidden check of" not in text and "return 2 * x" not in text


def children(pid: int) -> set:
    """The pids of every process below ``pid`` (from /proc)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), set()).add(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def student_cgroups(pids) -> list:
    """The student cgroups (enclosure.StudentCgroup) that processes ``pids`` made and left."""
    from autograder.sandbox.probe import mechanism

    bases = {base for _, base in mechanism().bases.values()}
    return [p for base in bases for pid in pids for p in base.glob(f"finite-{pid}-*")]


def test_interrupted_batch_resumes_without_regrading(tmp_path):
    """Ctrl-C mid-batch, then the same command again: finished students are kept, the rest graded.

    s3 and s4 sleep in an answer cell (10 s, then the cell limit stops them), so with one worker
    the interrupt always lands after s1 and s2 are done and while s3 runs."""
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    release = release_of(course)
    students = ["s1", "s2", "s3", "s4"]
    for student in students:
        sleeper = {"double": "import time\ntime.sleep(60)"} if student in ("s3", "s4") else {}
        write_submission(tmp_path / "submitted", student, with_answers(release, sleeper))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "autograder", "--course", str(course), "grade", str(tmp_path / "submitted"),
               "--assignment", ASSIGNMENT, "--out", str(out), "--workers", "1", "--cell-timeout", "10"]
    # As from a terminal: SIGINT at its default (a runner that started this suite in the background
    # has it ignored, and an ignored SIGINT is inherited across exec).
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    results = out / ".results"
    deadline = time.monotonic() + 300
    while len(list(results.glob("*.json"))) < 2 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    assert first.poll() is None, first.communicate()
    workers = children(first.pid)
    assert workers and student_cgroups(workers), "no student cgroup while s3 runs: nothing would be checked"
    os.killpg(first.pid, signal.SIGINT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 130 and "interrupted (2 of 4 students finished; their results are kept)" in err, err
    assert student_cgroups(workers) == [], "an interrupted run left its students' cgroups behind"
    assert not (out / "grades.csv").exists()
    kept = {p.name: p.stat().st_mtime_ns for p in results.glob("*.json")}
    assert sorted(kept) == ["s1.json", "s2.json"]
    second = run_cli(*command[3:])
    assert second.returncode == 0, second.stderr
    assert f"{len(kept)} already graded" in second.stderr
    assert {p.name: p.stat().st_mtime_ns for p in results.glob("*.json") if p.name in kept} == kept
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert {r["student"]: r["status"] for r in rows} == {"s1": "graded", "s2": "graded", "s3": "timeout", "s4": "timeout"}
    assert [p for p in out.rglob(".*") if p.is_file()] == [], "temporary files left behind"


def test_attack_patching_run_cell_gains_nothing(world):
    """The kernel reports every failing cell as a success; the judge still sees triple's wrong values."""
    row = world["rows"]["patcher"]
    assert row["test_double"] == "2" and row["test_triple"] == "0"


def test_attack_rewriting_later_cells_gains_nothing(world):
    """Every later cell, the restored tests included, becomes `pass`: no observations, no points."""
    row = world["rows"]["rewriter"]
    assert row["score"] == "0"


def test_attack_always_equal_object_gains_nothing(world):
    row = world["rows"]["equaliser"]
    assert row["test_double"] == "2" and row["test_triple"] == "0"
    assert "expected an int; your value is not one" in feedback(world, "equaliser")  # the reference's kind only


def test_attack_forging_observations_gains_nothing(world):
    """A forged observation lands in every later cell: extra or out of order, so those cells fail."""
    row = world["rows"]["forger"]
    assert row["test_triple"] == "0"


def test_gradebook_holds_the_scores_of_grades_csv(world):
    """nbgrader export (the formgrader's data) lists every graded student with the score in grades.csv."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(world["out"].parent / "export.csv")],
                          cwd=world["course"], capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    exported = {r["student_id"]: r for r in csv.DictReader((world["out"].parent / "export.csv").open())}
    for student, row in world["rows"].items():
        if row["status"] == "invalid_id":
            assert student not in exported
            continue
        assert float(exported[student]["raw_score"]) == float(row["score"]), student


def test_changing_a_hidden_test_regrades_everyone_and_nothing_else_does(tmp_path):
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    release = (course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    for student in ("s1", "s2"):
        folder = tmp_path / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{ASSIGNMENT}.ipynb").write_text(release)
    command = ("--course", str(course), "grade", str(tmp_path / "submitted"), "--assignment", ASSIGNMENT,
               "--out", str(tmp_path / "out"), "--workers", "2")
    assert run_cli(*command).returncode == 0
    again = run_cli(*command)
    assert "2 already graded" in again.stderr
    generations = course / ".finite" / "generated"  # nbgrader's generation, kept per fingerprint
    assert [p.name.split("-")[0] for p in generations.iterdir()] == [ASSIGNMENT]
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source.write_text(source.read_text().replace("triple(-5)", "triple(-7)").replace("-15", "-21"))
    changed = run_cli(*command)
    assert changed.returncode == 0 and "already graded" not in changed.stderr
    assert len(list(generations.iterdir())) == 2
    forced = run_cli(*command, "--regrade")
    assert forced.returncode == 0 and "already graded" not in forced.stderr


def test_a_misplaced_or_renamed_notebook_is_graded_with_a_note(world):
    for student, place in (("flat", "fx.ipynb"), ("renamed", "fx/fx (1).ipynb")):
        row = world["rows"][student]
        assert row["status"] == "graded" and row["score"] == "5", row
        assert row["notes"].startswith(f"graded {place}: the expected place is fx/fx.ipynb"), row


def test_a_venv_reached_through_a_symlink_grades(tmp_path):
    """The kernel is started by the symlink's path; the sandbox must show the venv there too."""
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    folder = tmp_path / "submitted" / "ann" / ASSIGNMENT
    folder.mkdir(parents=True)
    shutil.copy2(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder)
    link = tmp_path / "venv-link"
    link.symlink_to(Path(sys.prefix))
    done = subprocess.run([str(link / "bin" / "python"), "-m", "autograder", "--course", str(course), "grade",
                           str(tmp_path / "submitted"), "--assignment", ASSIGNMENT, "--out", str(tmp_path / "out")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{link / 'bin'}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert "ann,fx,graded,0,5" in (tmp_path / "out" / "grades.csv").read_text()


def test_grading_from_a_second_clone_binds_that_clone_s_fplab(tmp_path):
    """The venv's editable install names the first checkout; the kernel must import the fplab of the
    clone that grades (the one it fingerprints), bound into the sandbox."""
    clone = tmp_path / "clone"
    for part in ("autograder", "fplab"):
        shutil.copytree(ROOT / part, clone / part, ignore=shutil.ignore_patterns("__pycache__"))
    (clone / "fplab" / "__init__.py").write_text((clone / "fplab" / "__init__.py").read_text() + "\nSECOND_CLONE = True\n")
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release", cwd=clone).returncode == 0
    double = "import fplab\ndef double(x):\n    return 2 * x if getattr(fplab, 'SECOND_CLONE', False) else 0"
    write_submission(tmp_path / "submitted", "ann", with_answers(release_of(course), {"double": double}))
    done = run_cli("--course", str(course), "grade", str(tmp_path / "submitted"), "--assignment", ASSIGNMENT,
                   "--out", str(tmp_path / "out"), cwd=clone)
    assert done.returncode == 0, done.stderr
    assert "ann,fx,graded,2,5" in (tmp_path / "out" / "grades.csv").read_text()


def test_a_folder_name_that_is_no_student_id_is_reported_and_the_batch_goes_on(world):
    row = world["rows"]["bad name+1"]
    assert row["status"] == "invalid_id" and "not a valid nbgrader student id" in row["notes"]
    assert world["rows"]["honest"]["score"] == "5"


def test_a_grader_failure_on_one_student_is_that_student_s_grader_error(tmp_path, monkeypatch):
    from autograder.course import Course
    from autograder.grading import batch
    from autograder.sandbox.limits import Limits

    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    for student in ("ann", "bob"):
        folder = tmp_path / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        shutil.copy2(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder)
    real = batch.conclude

    def failing_for_bob(run, assignment, limits, context, notes):
        if context.student == "bob":
            raise RuntimeError("the judge broke")
        return real(run, assignment, limits, context, notes)

    monkeypatch.setattr(batch, "conclude", failing_for_bob)
    done = batch.grade_batch(Course(course), tmp_path / "submitted", ASSIGNMENT, tmp_path / "out", 1,
                             Limits(), progress=False, record_grades=False)
    statuses = {r.student: (r.status, r.notes) for r in done.results}
    assert statuses["ann"][0] == "graded"
    assert statuses["bob"] == ("grader_error", ["grader error: RuntimeError: the judge broke"])
    monkeypatch.setattr(batch, "conclude", real)
    again = batch.grade_batch(Course(course), tmp_path / "submitted", ASSIGNMENT, tmp_path / "out", 1,
                              Limits(), progress=False, record_grades=False)
    assert again.reasons == {"ann": "kept", "bob": "grader error before"}
    assert {r.student: r.status for r in again.results} == {"ann": "graded", "bob": "graded"}


def test_item_analysis_is_the_same_from_grade_and_from_the_gradebook(world, tmp_path):
    """`grade` writes items.csv beside grades.csv; `report` (after nbgrader autograde or the
    Formgrader) reads the same numbers back from autograded/ and the gradebook."""
    items = (world["out"] / "items.csv").read_text()
    assert "test_double" in items and (world["out"] / "report.html").is_file() and (world["out"] / "canvas.csv").is_file()
    done = run_cli("--course", str(world["course"]), "report", ASSIGNMENT, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "items.csv").read_text() == items
    again = {r["student"]: r["score"] for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert again and all(world["rows"][s]["score"] == score for s, score in again.items())
