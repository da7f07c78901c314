"""Where a learner stands (fplab.standing), Validate's words (fplab.validate) and the time table
(fplab.assignments): read from saved notebooks built here, nothing run."""
import re
import subprocess
import sys

import nbformat
import pytest

from conftest import ASSIGNMENTS, ROOT
from fplab.assignments import MINUTES, PART_ONE, time_text
from fplab.progress import FAILED, NOT_ATTEMPTED, PASSED, Exercise
from fplab.standing import exercises, standing
from fplab.validate import validate_text

START = ROOT / "notebooks" / "00_start_here.ipynb"


def minutes(text):
    """A duration as the notebooks write it: "2 h", "1 h 45", "about 1.5 hours", "1 hour 30 minutes", "75 minutes"."""
    hours = re.match(r"(\d+(?:\.\d+)?)\s*(?:h|hours?)\b(?:\s*(\d+)\s*(?:min|minutes)?\b)?", text)
    if hours:
        return round(float(hours[1]) * 60) + int(hours[2] or 0)
    return int(re.match(r"(\d+)\s*min", text)[1])


def test_the_time_table_has_every_assignment_in_order():
    assert list(MINUTES) == ASSIGNMENTS
    assert [time_text(m) for m in (120, 105, 75, 45)] == ["2 h", "1 h 45", "1 h 15", "45 min"]


def test_the_course_map_and_its_part_one_total_agree_with_the_table():
    text = "\n".join(cell.source for cell in nbformat.read(START, as_version=4).cells)
    rows = dict(re.findall(r"^\| \d\d \| `(\w+)` \|.*\| ([^|]+) \|$", text, re.M))
    assert {name: minutes(time) for name, time in rows.items()} == MINUTES
    total = re.search(r"Part I \(01–08\) is the\s+core, about (\d+) hours", text)
    assert total and int(total[1]) == round(sum(MINUTES[i] for i in PART_ONE) / 60)


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_each_notebook_states_the_time_of_the_table(assignment_id):
    text = (ROOT / "release" / assignment_id / f"{assignment_id}.ipynb").read_text()
    stated = re.search(r"\*\*Time(?::\*\*|\*\*:) about (.{,40})", text)
    assert stated, f"{assignment_id} has no **Time:** line"
    assert minutes(stated[1]) == MINUTES[assignment_id], (
        f"{assignment_id} says about {stated[1]}..., the table (fplab/assignments.py) "
        f"{time_text(MINUTES[assignment_id])}")


def graded_cell(grade_id, points, outputs=(), count=1):
    cell = nbformat.v4.new_code_cell("with visible_checks(...): ...", execution_count=count, outputs=list(outputs))
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": points, "locked": True,
                                 "solution": False, "schema_version": 3}
    return cell


def error(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"\x1b[31m{ename}\x1b[0m: {evalue}"])


def stream(name, text):
    return nbformat.v4.new_output("stream", name=name, text=text)


def ran_notebook():
    """A notebook whose test cells ran with every outcome a learner can leave."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99"),
        graded_cell("test_good", 3, [stream("stdout", "good: visible checks passed\n")]),
        graded_cell("test_stub", 2, [error("NotImplementedError", "")]),
        graded_cell("test_wrong", 4, [error("AssertionError", "1.0 and the next float32 are 1 apart\nmore")]),
        graded_cell("test_noisy", 1, [stream("stdout", "noisy: visible checks passed\n"),
                                    stream("stderr", "RuntimeWarning: invalid value\nsecond line\n")]),
        graded_cell("test_quiz", 2, [error("NameError", "answer the quiz first: q1 not set yet")]),
        graded_cell("test_later", 1, count=None),
    ]
    return nb


def test_each_test_cell_is_judged_from_its_outputs_as_validate_and_grading_judge_it():
    assert exercises(ran_notebook()) == [
        Exercise("good", 3, PASSED),
        Exercise("stub", 2, NOT_ATTEMPTED),
        Exercise("wrong", 4, FAILED, "AssertionError: 1.0 and the next float32 are 1 apart"),
        Exercise("noisy", 1, FAILED, "it wrote to stderr: RuntimeWarning: invalid value"),
        Exercise("quiz", 2, NOT_ATTEMPTED, "NameError: answer the quiz first: q1 not set yet"),
        Exercise("later", 1, NOT_ATTEMPTED, "its test cell has not run"),
    ]


def test_validate_names_the_failing_exercises_first_and_says_hidden_tests_check_more():
    text = validate_text(exercises(ran_notebook()))
    rows = [line.split()[0] for line in text.splitlines() if re.match(r"\w+\s+\d+\s+\S", line)]
    assert rows == ["wrong", "noisy", "stub", "quiz", "later", "good"]
    assert re.search(r"^wrong +4  fail \(AssertionError: 1.0 and the next float32 are 1 apart\)$", text, re.M)
    assert "1 of 6 exercises pass their visible checks." in text
    assert "hidden tests check more cases" in text and "passes all the tests" not in text
    everything = validate_text([Exercise("good", 3, PASSED)])
    assert "1 of 1 exercises pass their visible checks" in everything and "hidden tests check more" in everything


def saved(folder, assignment_id, nb):
    path = folder / assignment_id / f"{assignment_id}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)


def release(assignment_id):
    return nbformat.read(ROOT / "release" / assignment_id / f"{assignment_id}.ipynb", as_version=4)


def test_standing_lists_every_assignment_begun_or_not_with_each_exercise(tmp_path):
    first, second, third = ASSIGNMENTS[:3]
    saved(tmp_path, first, release(first))  # as handed out
    edited = release(second)  # an answer written, nothing run
    next(c for c in edited.cells if c.metadata.get("nbgrader", {}).get("solution")).source += "\n# mine"
    saved(tmp_path, second, edited)
    worked = release(third)
    tests = [c for c in worked.cells if c.metadata.get("nbgrader", {}).get("grade")]
    tests[0].execution_count, tests[0].outputs = 3, [error("AssertionError", "wrong shape")]
    tests[1].execution_count, tests[1].outputs = 4, [stream("stdout", "checks passed\n")]
    saved(tmp_path, third, worked)

    page = standing(tmp_path).splitlines()
    lines = {line.split()[0]: line for line in page if line.split() and line.split()[0] in MINUTES}
    assert list(lines) == ASSIGNMENTS
    assert lines[first].split()[1:] == ["not", "begun", "about", *time_text(MINUTES[first]).split()]
    assert "started" in lines[second] and "(0 of" in lines[second]
    assert "started" in lines[third] and "(1 of" in lines[third]
    for later in ASSIGNMENTS[3:]:
        assert "not here" in lines[later] and f"about {time_text(MINUTES[later])}" in lines[later]
    rows = page[page.index(lines[third]) + 3:]
    names = [e.name for e in exercises(worked)]
    assert rows[0].split()[0] == names[0] and "fail (AssertionError: wrong shape)" in rows[0]
    assert rows[1].split()[0] == names[1] and rows[1].endswith(PASSED)
    assert rows[2].endswith("not attempted (its test cell has not run)")


def test_python_m_fplab_standing_reads_release_where_it_runs(tmp_path):
    saved(tmp_path / "release", ASSIGNMENTS[0], release(ASSIGNMENTS[0]))
    done = subprocess.run([sys.executable, "-m", "fplab.standing"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Where you stand, from your notebooks saved in release/")
    assert re.search(rf"^{ASSIGNMENTS[0]}\s+not begun", done.stdout, re.M)
