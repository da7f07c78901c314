"""The batch machinery with no kernel: expectations, the check report, resume, refusals, release's swap."""
import io
import json
import shutil
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder import release as release_module
from autograder.grading.discovery import check_folders
from autograder.grading.files import write_atomic
from autograder.grading.publishing import finished, result_path
from autograder.grading.scheduling import AHEAD, drain
from autograder.cases import Case, load_cases
from autograder.check import report
from autograder.cli import summary
from autograder.course import CourseError, read_notebook
from autograder.grading.verdict import Result

TESTS = {"test_a": 2, "test_b": 3}


def result(student, scores, status="graded", observed=None, **kw):
    return Result(student, "x", status, scores, 5.0, observed=observed or {t: 1.0 for t in scores}, **kw)


def test_generic_attacks_answer_the_first_cell_defining_its_own_function(tmp_path):
    (tmp_path / "every_assignment").mkdir()
    (tmp_path / "every_assignment" / "ask.py").write_text("def $function(x):\n    return x\n")
    (tmp_path / "a1").mkdir()
    (tmp_path / "a1" / "b--right--other.py").write_text("b = 2\n")
    cells = {"quiz": "q1 = 'a'", "b": "b = 1", "f": "import math\ndef f(x):\n    return x", "g": "def g(): pass"}
    solutions = {k: SimpleNamespace(source=v) for k, v in cells.items()}
    cases = load_cases(SimpleNamespace(cases=tmp_path), "a1", solutions)
    assert [c.name for c in cases] == ["solution", "blank", "b--right--other", "every_assignment--ask"]
    assert cases[-1].answers == {"f": "def f(x):\n    return x\n"}
    assert cases[-1].expected({"test_b": 1, "test_f": 2}) == {"test_b": None, "test_f": 0}  # the rest unchecked
    with pytest.raises(CourseError, match="named after itself"):
        load_cases(SimpleNamespace(cases=tmp_path), "a1", {"quiz": solutions["quiz"], "b": solutions["b"]})


def test_case_expectations():
    assert Case("solution").expected(TESTS) == {"test_a": 2, "test_b": 3}
    assert Case("blank", blank=True).expected(TESTS) == {"test_a": 0, "test_b": 0}
    assert Case("a--wrong--x", failing="test_a").expected(TESTS) == {"test_a": 0, "test_b": 3}


def test_check_report_flags_every_kind_of_mismatch():
    cases = [Case("solution"), Case("blank", blank=True), Case("a--wrong--x", failing="test_a"),
             Case("b--wrong--kernel_only", failing="test_b"), Case("b--right--y"), Case("a--wrong--died", failing="test_a")]
    results = {
        "solution": result("solution", {"test_a": 2.0, "test_b": 3.0}),
        "blank": result("blank", {"test_a": 0.0, "test_b": 0.0}, observed={"test_a": 0.0, "test_b": 0.0}),
        "a__wrong__x": result("a__wrong__x", {"test_a": 0.0, "test_b": 3.0}, observed={"test_a": 0.0, "test_b": 1.0},
                              caught_by_visible=["test_a"]),
        # right score, but only because the kernel reported an error: a cheat would pass
        "b__wrong__kernel_only": result("b__wrong__kernel_only", {"test_a": 2.0, "test_b": 0.0}),
        "b__right__y": result("b__right__y", {"test_a": 2.0, "test_b": 2.0}),
        "a__wrong__died": result("a__wrong__died", {"test_a": 0.0, "test_b": 3.0}, status="kernel_died",
                                 observed={"test_a": 0.0, "test_b": 1.0}),
    }
    out = io.StringIO()
    assert report("x", cases, TESTS, results, out) == 3
    rows = {line.split()[0]: line for line in out.getvalue().splitlines()[2:] if line.startswith("  ") and "--" in line}
    assert rows["a--wrong--x"].endswith(" ok")
    assert "fails only in the kernel" in rows["b--wrong--kernel_only"]
    assert "test_b got 2 want 3" in rows["b--right--y"]
    assert "status kernel_died" in rows["a--wrong--died"]
    assert "visible tests alone catch 1 of 3 wrong answers (33 %" in out.getvalue()


def test_resume_keeps_a_result_only_for_the_same_submission_assignment_and_fingerprint(tmp_path):
    stored = result("ann", {"test_a": 2.0}, submission_sha256="abc", fingerprint="f1")
    write_atomic(result_path(tmp_path, "ann"), stored.to_json())
    assert finished(tmp_path, "ann", "abc", "x", "f1") == (stored, "kept")
    assert finished(tmp_path, "ann", "abd", "x", "f1") == (None, "submission changed")
    assert finished(tmp_path, "ann", "abc", "y", "f1") == (None, "submission changed")  # another assignment
    assert finished(tmp_path, "ann", "abc", "x", "f2") == (None, "assignment or grader changed")
    assert finished(tmp_path, "bob", "abc", "x", "f1") == (None, "new")
    result_path(tmp_path, "bob").write_text("{not json")
    assert finished(tmp_path, "bob", "abc", "x", "f1") == (None, "new")


def test_write_atomic_leaves_no_temp_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "grades.csv"
    target.write_text("old")
    monkeypatch.setattr("os.replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        write_atomic(target, "new")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


class Runs:
    """``students`` submissions, each a future that ends ``after`` seconds after it was fed (0: fed
    already ended), as a pool's would; what drain fed and finished, and how many were queued at most."""

    def __init__(self, students, after):
        self.left, self.after, self.finished, self.most = list(range(students)), after, [], 0
        self.pending = set()

    def feed(self, count):
        fed = set()
        while self.left and len(fed) < count:
            future = Future()
            future.student = self.left.pop(0)
            if self.after:
                threading.Timer(self.after, future.set_result, [None]).start()
            else:
                future.set_result(None)
            fed.add(future)
        self.pending |= fed
        self.most = max(self.most, len(self.pending))
        return fed

    def finish(self, done):
        self.pending -= done
        self.finished += [f.student for f in done]


@pytest.mark.parametrize("after", [0, 0.01])
def test_drain_grades_every_student_however_fast_the_runs_end_and_queues_at_most_ahead_per_worker(after):
    runs = Runs(40, after)
    drain(runs.feed(2), runs.feed, runs.finish, workers=2)
    assert sorted(runs.finished) == list(range(40))  # none left behind when the queue empties early
    assert runs.most <= 2 * (AHEAD + 1)


def test_refusals_before_anything_runs(tmp_path, course):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    with pytest.raises(CourseError, match="not a folder"):
        check_folders(course, tmp_path / "nowhere", tmp_path / "out")
    with pytest.raises(CourseError, match="inside the submissions folder"):
        check_folders(course, submitted, submitted / "out")
    exposed = Path(sys.prefix) / "finite-layout-test"
    exposed.mkdir()
    try:
        with pytest.raises(CourseError, match="unsafe layout"):
            check_folders(course, exposed, tmp_path / "out")
    finally:
        exposed.rmdir()


def test_release_leaves_release_untouched_when_a_swap_fails_midway(tmp_path, monkeypatch):
    class FakeCourse:
        release = tmp_path / "release"

    for name in ("a", "b"):
        (FakeCourse.release / name).mkdir(parents=True)
        (FakeCourse.release / name / f"{name}.ipynb").write_text("old")
    generated = tmp_path / "work" / "course" / "release"

    def fake_generate(course, ids, workdir):
        for name in ids:
            (generated / name).mkdir(parents=True, exist_ok=True)
            (generated / name / f"{name}.ipynb").write_text("new")
        return generated.parent

    copies, copytree, fail_on = [], shutil.copytree, {2}

    def failing_copytree(src, dst, *args, **kwargs):
        copies.append(src)
        if len(copies) in fail_on:
            raise OSError("disk full")
        return copytree(src, dst, *args, **kwargs)

    monkeypatch.setattr(release_module, "generate", fake_generate)
    monkeypatch.setattr(release_module.shutil, "copytree", failing_copytree)
    with pytest.raises(OSError):
        release_module.release(FakeCourse, ["a", "b"])
    contents = {p.parent.name: p.read_text() for p in FakeCourse.release.glob("*/*.ipynb")}
    assert contents == {"a": "old", "b": "old"}, "a failure midway must leave every assignment as it was"
    assert sorted(p.name for p in FakeCourse.release.iterdir()) == ["a", "b"], "staged copies left behind"
    fail_on.clear()
    assert release_module.release(FakeCourse, ["a", "b"]) == ["a", "b"]
    assert {p.parent.name: p.read_text() for p in FakeCourse.release.glob("*/*.ipynb")} == {"a": "new", "b": "new"}


def test_terminal_summary_names_students_who_need_a_look():
    results = [result("ann", {"test_a": 2.0}), result("bob", {"test_a": 0.0}, status="timeout", notes=["cell 3 ran over"]),
               result("cy", {}, status="missing", notes=["no notebook was submitted"]),
               result("dee", {}, status="missing"), result("eve", {}, status="missing")]
    text = summary(results)
    assert text.splitlines()[0] == "5 students: 1 graded, 3 missing, 1 timeout"
    assert "  bob: timeout; cell 3 ran over" in text and "ann" not in text
    assert "warning: 3 of 5 students have no notebook" in text


def test_the_terminal_wraps_long_review_lists_instead_of_cutting_them():
    notes = [f"cell {i}, line 3: calls eval() with a long and winding explanation" for i in range(8)]
    text = summary([result("ann", {"test_a": 2.0}, review=notes)])
    assert "cell 7, line 3: calls eval() with a long and winding explanation" in " ".join(text.split())
    assert all(len(line) <= 100 for line in text.splitlines())


def test_csv_summary_and_terminal_read_the_final_grades_a_manual_score_included(tmp_path):
    from types import SimpleNamespace

    from autograder.grading.gradebook import Final
    from autograder.grading.publishing import ClassSummary, write_table

    assignment = SimpleNamespace(tests=TESTS, assignment_id="x")
    results = [result("ann", {"test_a": 2.0, "test_b": 3.0}), result("bob", {"test_a": 2.0, "test_b": 0.0}),
               result("cy", {"test_a": 0.0, "test_b": 0.0}, status="missing")]
    finals = {r.student: Final.of(r) for r in results}
    finals["bob"] = Final({"test_a": 2.0, "test_b": 1.5}, 5.0, {"test_b": "half, for the idea"}, frozenset({"test_b"}))
    write_table(results, finals, assignment, tmp_path)
    rows = (tmp_path / "grades.csv").read_text().splitlines()
    assert rows[0].split(",")[:8] == ["student", "assignment", "status", "score", "max_score", "test_a", "test_b",
                                      "graded_by_hand"]
    assert rows[2].startswith("bob,x,graded,3.5,5,2,1.5,test_b,")
    data = ClassSummary.of(results, finals, assignment)
    assert data.full_marks == {"test_a": 2, "test_b": 1}
    assert data.totals == {3.5: 1, 5.0: 1} and data.statuses == {"graded": 2, "missing": 1}
    assert "mean score 2.83 / 5" in summary(results, None, finals)


def test_a_partial_case_must_earn_some_but_not_all_of_its_cell():
    tests = {"test_a": 2, "test_quiz": 2}
    cases = [Case("quiz--partial--one", partial="test_quiz"), Case("quiz--partial--none", partial="test_quiz"),
             Case("quiz--partial--all", partial="test_quiz")]
    results = {"quiz__partial__one": result("quiz__partial__one", {"test_a": 2.0, "test_quiz": 1.5}),
               "quiz__partial__none": result("quiz__partial__none", {"test_a": 2.0, "test_quiz": 0.0}),
               "quiz__partial__all": result("quiz__partial__all", {"test_a": 2.0, "test_quiz": 2.0})}
    out = io.StringIO()
    assert report("x", cases, tests, results, out) == 2
    assert "quiz--partial--one" in out.getvalue() and "want some" in out.getvalue()


def test_the_fingerprint_covers_the_grader_s_own_code(tmp_path, monkeypatch):
    """One character changed in the judging code regrades every student; nothing changed, nobody."""
    import autograder
    from autograder.course import Course
    from autograder.grading.assignment import fingerprint
    from autograder.sandbox.limits import Limits

    course = Course(Path(__file__).resolve().parents[1])
    before = fingerprint(course, "01_nonassociativity", Limits())
    assert fingerprint(course, "01_nonassociativity", Limits()) == before
    copy = tmp_path / "autograder"
    shutil.copytree(Path(autograder.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    observations = copy / "grading" / "observations.py"
    observations.write_text(observations.read_text().replace("MAX_OBSERVATIONS = 2000", "MAX_OBSERVATIONS = 2001"))
    monkeypatch.setattr(autograder, "__file__", str(copy / "__init__.py"))
    assert fingerprint(course, "01_nonassociativity", Limits()) != before
    assert fingerprint(course, "01_nonassociativity", Limits(cell_timeout=61)) != before


def test_the_kernel_server_is_asked_for_the_heavy_modules_by_the_notebooks_measured_to_import_them(course):
    from autograder.sandbox.late_imports import late_imports

    # Measured: running the solved notebook imports torch._dynamo in 04 and 07-11 only, and
    # torch.distributed.tensor (assert_close's first call) in 01 and 09 only.
    asked = {a: late_imports(read_notebook(course.release / a / f"{a}.ipynb")) for a in course.assignment_ids()}
    assert {a for a, modules in asked.items() if "torch._dynamo" in modules} == {
        "04_silent_nan", "07_amp_gradscaler_tf32", "08_nan_diagnosis_lab", "09_compiled_numerics",
        "10_memory_and_flops", "11_resume_equivalence"}
    assert {a for a, modules in asked.items() if "torch.distributed.tensor" in modules} == {
        "01_nonassociativity", "09_compiled_numerics"}


def test_a_submission_quoting_the_hidden_tests_is_held_for_a_person():
    from types import SimpleNamespace

    from autograder.grading.admit import holds_source_text

    hidden = ("_tols(dtype, n, scale)", "observe('lse', _lse(z))", "finite = x.detach().double()")
    assignment = SimpleNamespace(hidden_lines=hidden)
    nb = {"cells": [{"cell_type": "code", "source": "def f(x):\n    return x"}]}
    assert holds_source_text(nb, assignment) == ""
    nb["cells"][0]["source"] += f"\n{hidden[0]}\n{hidden[1]}"  # weighing 8 together: short lines an answer may share
    assert holds_source_text(nb, assignment) == ""
    nb["cells"].append({"cell_type": "markdown", "source": hidden[2]})
    assert holds_source_text(nb, assignment) == ("holds source text: 3 lines of the hidden tests, which only the "
                                                 "instructor's notebook has")
    marked = {"cells": [{"cell_type": "code", "source": "x = 1\n### BEGIN SOLUTION\ny = 2"}]}
    assert holds_source_text(marked, assignment).startswith("holds source text: a solution or hidden-test marker")


def test_what_collect_recorded_reaches_grading_only_for_the_notebook_it_copied(tmp_path):
    from autograder.exchange.records import Collected, CollectRecord, ExchangeNotes, exchange_notes, save_record

    assert exchange_notes(tmp_path, "01", "alice", "abc") == ExchangeNotes()
    save_record(tmp_path, CollectRecord("alice", "01", Collected("alice+01+t+r", "t", "abc", ["mode 0777"]),
                                        ["folder alice+01+u+s: x is a FIFO"]))
    mine = exchange_notes(tmp_path, "01", "alice", "abc")
    assert mine.review == ("collect: mode 0777", "collect: a later submission was refused, folder alice+01+u+s: x is a FIFO")
    assert mine.notes == mine.review[1:] and not mine.refused and mine.digest
    other = exchange_notes(tmp_path, "01", "alice", "def")  # replaced by hand since: only the refusal is said
    assert other.review == ("collect: refused folder alice+01+u+s: x is a FIFO",)
    save_record(tmp_path, CollectRecord("bob", "01", None, ["folder bob+01+u+s: x is a FIFO"]))
    assert exchange_notes(tmp_path, "01", "bob", None).refused


def test_an_exchange_root_others_can_write_needs_the_sticky_bit(tmp_path):
    from types import SimpleNamespace

    from autograder.exchange.root import root_problem

    exchange = SimpleNamespace(root=str(tmp_path / "exchange"), coursedir=SimpleNamespace(root=str(tmp_path)))
    (tmp_path / "exchange").mkdir()
    for mode, fine in ((0o755, True), (0o1777, True), (0o777, False), (0o775, False)):
        (tmp_path / "exchange").chmod(mode)
        problem = root_problem(exchange)
        assert (problem == "") == fine, (oct(mode), problem)
    assert f"run `chmod 1777 {tmp_path / 'exchange'}`" in problem
    (tmp_path / ".exchange").mkdir(mode=0o755)
    (tmp_path / ".exchange").chmod(0o777)
    exchange.root = str(tmp_path / ".exchange")
    assert f"run `chmod 755 {tmp_path / '.exchange'}`" in root_problem(exchange)


def test_a_notebook_larger_than_grading_reads_is_refused_before_it_is_parsed_as_code():
    from autograder.grading.admit import MAX_CELL_KB, MAX_CELLS, MAX_CODE_KB, over_size

    cell = {"cell_type": "code", "source": "x = 1\n"}
    assert over_size({"cells": [cell] * 10}) == ""
    assert over_size({"cells": [cell] * (MAX_CELLS + 1)}).startswith(f"the notebook holds {MAX_CELLS + 1} cells")
    big = {"cell_type": "code", "source": "x = 1\n" * (MAX_CELL_KB * 200)}  # 240 KB: 40,000 never-run statements
    assert over_size({"cells": [cell, big]}) == f"cell 2 holds more than {MAX_CELL_KB} KB of text, more than grading reads"
    many = {"cell_type": "code", "source": ["y = 2\n"] * (MAX_CELL_KB * 200)}  # the same as a list of lines
    assert over_size({"cells": [many]}).startswith("cell 1 holds more than")
    spread = [{"cell_type": "code", "source": "z" * (MAX_CELL_KB * 900)}] * (MAX_CODE_KB // MAX_CELL_KB + 2)
    assert "in all" in over_size({"cells": spread})


def test_students_without_a_name_get_one_line_that_says_how_to_name_them(tmp_path):
    from autograder.grading.gradebook import quiet_gradebook, unnamed_line

    with quiet_gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_student("ann", first_name="Ann", last_name="Lee")
        gradebook.add_student("bob")
        line = unnamed_line(gradebook, ["ann", "bob", "cy"])
        assert line.startswith("2 student(s) without a name in the gradebook (bob, cy)")
        assert "'None, None'" in line and "nbgrader db student import" in line
        assert unnamed_line(gradebook, ["ann"]) == ""
        assert "(s0, s1, s2, s3, s4 and 2 more)" in unnamed_line(gradebook, [f"s{i}" for i in range(7)])
