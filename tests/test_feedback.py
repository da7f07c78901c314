"""Scoring and feedback from an executed notebook, with no kernel: what a hostile notebook can and cannot show."""
import base64
import re
import sys

import nbformat
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.grading.disclosure import WITHHELD, SecretFilter, assertion_templates
from autograder.grading.feedback import render
from autograder.grading.admit import tampering
from autograder.grading.assignment import Assignment
from autograder.grading.gradebook import Final
from autograder.grading.verdict import Result, score_tests
from autograder.sandbox.limits import Limits
from autograder.sandbox.usage import Usage
from autograder.grading.observations import Observation
from fplab.observe import MIME, encode

HIDDEN = "_xs = torch.tensor([1e-45, 1e-40, 1.1754944e-38])\nassert ulp_distance(_xs, _up).tolist() == [1, 1, 1]"
SOLUTION = "bits = t.view(torch.int32).to(torch.int64)\nmagnitude = bits & 0x7FFFFFFF"
VISIBLE = 'd = ulp(a, b)\nassert d.dtype == torch.int64, f"return an int64 tensor, got {d!r}"\nassert d.tolist() == [0], "equal values are 0 apart"'


def meta(grade_id, **flags):
    return {"nbgrader": {"schema_version": 3, "grade_id": grade_id, "task": False, **flags}}


def graded_cell(outputs, source=VISIBLE):
    cell = new_code_cell(source, metadata=meta("test_ulp", grade=True, solution=False, locked=True, points=3))
    cell.outputs = outputs
    return cell


def answer_cell(outputs, source="def ulp(a, b):\n    return mine"):
    cell = new_code_cell(source, metadata=meta("ulp", grade=False, solution=True, locked=False))
    cell.outputs = outputs
    return cell


def seen(name, value):
    return new_output("display_data", data={MIME: {"name": name, "value": encode(value)}})


def error(ename, evalue):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"Cell In[3], line 2", f"{ename}: {evalue}"])


@pytest.fixture
def assignment():
    release = {"test_ulp": graded_cell([])}
    secrets = SecretFilter([HIDDEN, SOLUTION], [VISIBLE])
    return Assignment("01_x", release, {"test_ulp": 3}, secrets, templates={"test_ulp": assertion_templates(VISIBLE)},
                      reference={"test_ulp": [Observation("dtype", encode("torch.int64")),
                                              Observation("neighbours", encode([1, 1, 1]))]})


def score(nb, ran, assignment):
    """Every test cell's scores, judged as grading does, the cells in ``ran`` having run."""
    run = SimpleNamespace(outcome="ok", usage=Usage(), timed_out=(), stopped_in=-1, ran=tuple(ran))
    return score_tests(nb, run, assignment, Limits())


def graded(assignment, *cells):
    return score(new_notebook(cells=list(cells)), range(len(cells)), assignment)


def test_matching_observations_and_a_clean_kernel_score_full_marks(assignment):
    got = graded(assignment, graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 1, 1])]))
    scores, errors, judged = got.points, got.errors, got.observed
    assert scores == {"test_ulp": 3.0} and errors == {} and judged == {"test_ulp": 1.0}


def test_a_silenced_failure_scores_nothing(assignment):
    """The kernel said the cell passed (no error output), but the observations are wrong."""
    got = graded(assignment, graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 2, 1])]))
    scores, errors = got.points, got.errors
    assert scores == {"test_ulp": 0.0} and errors["test_ulp"].startswith("neighbours:")


def test_a_kernel_error_lowers_a_matching_cell_to_zero(assignment):
    cells = graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 1, 1]), error("AssertionError", "x")])
    got = graded(assignment, cells)
    scores, errors, judged = got.points, got.errors, got.observed
    assert scores == {"test_ulp": 0.0} and judged == {"test_ulp": 1.0}


def test_stderr_fails_the_cell(assignment):
    cells = graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 1, 1]),
                       new_output("stream", name="stderr", text="RuntimeWarning: invalid value")])
    got = graded(assignment, cells)
    scores, errors = got.points, got.errors
    assert scores == {"test_ulp": 0.0} and "stderr" in errors["test_ulp"]


def test_a_cell_that_never_ran_scores_zero(assignment):
    nb = new_notebook(cells=[graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 1, 1])])])
    got = score(nb, set(), assignment)
    scores, errors = got.points, got.errors
    assert scores == {"test_ulp": 0.0} and "did not run" in errors["test_ulp"]


def test_malformed_observation_data_scores_zero_with_a_note(assignment):
    bad = new_output("display_data", data={MIME: {"name": 3}})
    got = graded(assignment, graded_cell([bad]))
    scores, errors = got.points, got.errors
    assert scores == {"test_ulp": 0.0} and errors["test_ulp"].startswith("malformed observation data")


def test_error_lines_show_visible_messages_but_never_other_text(assignment):
    visible = graded_cell([error("AssertionError", "return an int64 tensor, got tensor([0], dtype=torch.int32)")])
    assert "return an int64 tensor, got tensor([0]" in graded(assignment, visible).errors["test_ulp"]
    leaked = graded_cell([error("ValueError", HIDDEN[::-1])])
    assert graded(assignment, leaked).errors["test_ulp"].startswith("ValueError;")
    hidden_in_field = graded_cell([error("AssertionError", f"return an int64 tensor, got {HIDDEN[:60][::-1]}")])
    assert "got" not in graded(assignment, hidden_in_field).errors["test_ulp"]
    odd_name = graded_cell([error("x = 1; print(secret)", "")])
    assert graded(assignment, odd_name).errors["test_ulp"].startswith("an error")


def test_visible_failures_are_told_apart_for_check(assignment):
    early = graded_cell([error("AssertionError", "equal values are 0 apart")])
    assert graded(assignment, early).caught_by_visible == ["test_ulp"]
    late = graded_cell([new_output("error", ename="AssertionError", evalue="", traceback=["Cell In[9], line 7"])])
    assert graded(assignment, late).caught_by_visible == []


@pytest.mark.parametrize("encode_leak", [
    lambda s: s, lambda s: s[::-1], lambda s: " ".join(s), lambda s: base64.b64encode(s.encode()).decode(),
    lambda s: base64.b64encode(s[::-1].encode()).decode(), lambda s: s.encode().hex(),
    lambda s: __import__("codecs").encode(s, "rot13"), lambda s: s.upper().replace("_", "-"),
    lambda s: base64.b64encode(__import__("zlib").compress(s.encode())).decode(),
    lambda s: base64.b32encode(s.encode()).decode(),
])
def test_secret_filter_finds_hidden_text_in_any_common_encoding(encode_leak):
    secrets = SecretFilter([HIDDEN, SOLUTION], [VISIBLE])
    assert secrets.leaks("look: " + encode_leak(HIDDEN) + " done")
    assert secrets.leaks(encode_leak(SOLUTION))


def test_secret_filter_lets_ordinary_and_public_text_through():
    secrets = SecretFilter([HIDDEN, SOLUTION], [VISIBLE])
    for text in ("tensor([0, 1, 2])", "loss 0.6931 at step 3", VISIBLE, "float32 " * 40, ""):
        assert not secrets.leaks(text)
    assert secrets.clean("x" * 5000, limit=100).endswith("[... 4900 more characters]")


def test_feedback_shows_verdicts_own_answers_and_only_what_ran_before_the_tests(assignment):
    hostile = answer_cell([new_output("stream", name="stdout", text="executed output, never shown")])
    test = graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 2, 1]),
                      new_output("stream", name="stdout", text=HIDDEN)])
    later = answer_cell([new_output("display_data", data={"image/png": "iVBORw0KGgo="})], source="def later(): pass")
    nb = new_notebook(cells=[hostile, test, later])
    got = score(nb, {0, 1, 2}, assignment)
    scores, errors = got.points, got.errors
    result = Result("eve", "01_x", "graded", scores, 3.0, errors=errors)
    shown = {"0": [{"kind": "out", "text": "my own print"},
                   {"kind": "out", "text": base64.b64encode(HIDDEN.encode()).decode()}]}
    page = render(result, Final.of(result), nb, assignment, shown)
    assert "my own print" in page and WITHHELD in page and "neighbours:" in page
    assert "executed output" not in page and "<img" not in page and "ran after the first test cell" in page
    assert "1e-45" not in page and "tolist" not in page and "0x7FFFFFFF" not in page
    assert base64.b64encode(HIDDEN.encode()).decode()[:30] not in page
    warned = {"0": [{"kind": "err", "text": f"{sys.prefix}/lib/python3.11/site-packages/torch/x.py:3: UserWarning: w"}]}
    page = render(result, Final.of(result), nb, assignment, warned)
    assert "&lt;python env&gt;/lib/python3.11/site-packages/torch/x.py:3: UserWarning" in page, page
    assert sys.prefix not in page  # the server's folders are not the learner's
    hostile_name = Result("<script>", "01_x", "graded", scores, 3.0)
    assert "<script" not in render(hostile_name, Final.of(hostile_name), nb, assignment, {})


def test_tampering_notes_name_changed_deleted_and_retyped_cells(assignment):
    changed = graded_cell([], source="pass")
    assert tampering(new_notebook(cells=[changed]), assignment) == [
        "locked cell test_ulp was modified (checksum changed); restored"]
    assert tampering(new_notebook(cells=[]), assignment) == ["locked cell test_ulp was deleted; restored"]
    retyped = nbformat.v4.new_markdown_cell("x", metadata=meta("test_ulp", grade=True, solution=False, locked=True, points=3))
    assert "changed from code to markdown" in tampering(new_notebook(cells=[retyped]), assignment)[0]
    assert tampering(new_notebook(cells=[graded_cell([])]), assignment) == []


def test_assertion_templates_match_formatted_messages_only():
    [typed, plain] = assertion_templates(VISIBLE)
    assert typed.fullmatch("return an int64 tensor, got tensor([1])") and not typed.fullmatch("anything else")
    assert plain.fullmatch("equal values are 0 apart")
    assert assertion_templates("def broken(:") == []


def test_a_number_the_test_cell_ends_with_is_no_partial_credit(assignment):
    """A hidden region that ends with ``observe(...)`` shows the learner's value as the cell's
    result; nbgrader would read it as partial credit (and fail on one above the points)."""
    result = new_output("execute_result", data={"text/plain": "42"}, execution_count=3)
    scores = graded(assignment, graded_cell([seen("dtype", "torch.int64"), seen("neighbours", [1, 1, 1]), result])).points
    assert scores == {"test_ulp": 3.0}


def test_an_exception_class_name_of_the_learner_s_making_is_not_shown(assignment):
    """A class named after what the code saw (hidden inputs, a host file) would carry it out."""
    made_up = error("H_for__n___act_in___1000__0", "boom")
    cell = graded_cell([made_up])
    errors = score(new_notebook(cells=[cell]), {0}, assignment).errors
    assert "H_for" not in errors["test_ulp"] and "an error" in errors["test_ulp"]
    errors = score(new_notebook(cells=[graded_cell([error("ValueError", "x")])]), {0}, assignment).errors
    assert errors["test_ulp"].startswith("ValueError")
