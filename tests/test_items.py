"""Item analysis (items.csv, report.html, canvas.csv) and failure signatures, kernel-free."""
import csv
import math

import pytest
import torch

from autograder.bench.report import synthetic_class
from autograder.grading.items import analyse, largest_signatures, write_analysis
from autograder.grading.verdict import Result
from autograder.grading.observations import Observation
from autograder.grading.signatures import signature, tolerance_use
from fplab.observe import MIME
from autograder.grading.gradebook import Final
from fplab.observe import encode


@pytest.mark.parametrize("got, named", [
    (torch.tensor([float("nan"), 2.0]), "NaN where the reference is finite"),
    (torch.tensor([-math.inf, 2.0]), "inf where the reference is finite"),
    (torch.tensor([1.0, 2.0], dtype=torch.float64), "dtype torch.float64 where torch.float32 was expected"),
    (torch.tensor([1.0]), "wrong shape"),
    (torch.tensor([1.0 + 2**-23, 2.0]), "within 1 ulp"),
    (torch.tensor([1.0 + 40 * 2**-23, 2.0]), "within 64 ulps"),
    (torch.tensor([1.01, 2.0]), "relative error about 1e-2"),
    (torch.tensor([-1.0, 2.0]), "sign differs"),
    (1.0, "float where tensor was expected"),
])
def test_signatures_name_what_differed_in_the_courses_words(got, named):
    assert signature(encode(torch.tensor([1.0, 2.0])), encode(got), 0.0, 0.0) == named


def _cell(*values):
    return {"outputs": [{"output_type": "display_data", "data": {MIME: {"name": f"o{i}", "value": encode(v)}}}
                        for i, v in enumerate(values)]}


def test_tolerance_use_is_the_largest_share_of_the_tolerance_any_finite_entry_takes():
    reference = [Observation("o0", encode(torch.tensor([1.0, 100.0, math.inf])), rtol=0.01, atol=0.5),
                 Observation("o1", encode(3.0)),  # exact: nothing to audit
                 Observation("o2", encode([2.0, torch.tensor([4.0])]), atol=1.0)]
    # 100 -> 101 uses 1 / (0.5 + 1) of its tolerance; the item 4 -> 4.9 uses 0.9; the infinity is skipped
    got = _cell(torch.tensor([1.0, 101.0, math.inf]), 7.0, [2.0, torch.tensor([4.9])])
    assert tolerance_use(reference, got) == pytest.approx(0.9)
    got = _cell(torch.tensor([1.0, 103.0, math.inf]), 3.0, [2.0, torch.tensor([4.0])])
    assert tolerance_use(reference, got) == pytest.approx(2.0)
    assert tolerance_use(reference, _cell(torch.tensor([math.nan] * 3), 3.0, "not a list")) is None
    assert tolerance_use(reference[1:2], _cell(3.0)) is None
    assert tolerance_use(reference, {"outputs": [{"output_type": "display_data", "data": {MIME: "{"}}]}) is None


def test_a_dtype_the_vocabulary_does_not_know_is_not_repeated():
    forged = {**encode(torch.tensor([1.0, 2.0])), "dtype": "torch.float32<script>"}
    assert signature(encode(torch.tensor([1.0, 2.0])), forged, 0, 0) == \
        "dtype another dtype where torch.float32 was expected"


def result(student, scores, signatures=None, status="graded", review=()):
    return Result(student, "a", status, scores, 6.0, signatures=signatures or {}, review=list(review))


def test_items_count_spread_discrimination_and_group_wrong_answers():
    results = [result("full", {"test_f": 3, "test_g": 3}), result("half", {"test_f": 1.5, "test_g": 3}),
               result("nan", {"test_f": 0, "test_g": 0}, {"test_f": [["big", "NaN where the reference is finite"]],
                                                          "test_g": [["", "method rule breach"]]}),
               result("nan2", {"test_f": 0, "test_g": 3}, {"test_f": [["big", "NaN where the reference is finite"]]}),
               result("away", {}, status="missing")]
    finals = {r.student: Final(r.scores, 6.0) for r in results}
    assignment = type("A", (), {"assignment_id": "a", "tests": {"test_f": 3, "test_g": 3}, "max_score": 6.0})
    f, g = analyse(results, finals, assignment)
    assert (f.students, f.full, f.partial, f.zero) == (4, 1, 1, 2)
    assert f.mean == pytest.approx(1.125) and f.discrimination == pytest.approx(0.5222, abs=1e-3)
    assert [(x.signature, x.students, x.example) for x in f.groups] == [
        ("NaN where the reference is finite", ("nan", "nan2"), "big"),
        ("no signature (graded before signatures were kept)", ("half",), "")]
    assert g.groups[0].signature == "method rule breach"
    assert largest_signatures([f, g])[0] == "test_f: 2 students: NaN where the reference is finite (first at big)"


def test_the_files_beside_grades_csv(tmp_path):
    results, finals, assignment = synthetic_class(12, 3)
    lines = write_analysis(results, finals, assignment, tmp_path)
    assert len(lines) == 3
    rows = list(csv.DictReader((tmp_path / "items.csv").open()))
    assert [r["test"] for r in rows] == list(assignment.tests)
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in page and lines[0].split(": ", 1)[0] in page
    canvas = list(csv.reader((tmp_path / "canvas.csv").open()))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "synthetic"]
    assert canvas[1][0] == "Points Possible" and canvas[1][-1] == "9"
    assert canvas[2][3] == canvas[2][0] == "s0000"


def test_a_batch_where_nothing_ran_says_so_and_draws_nothing(tmp_path):
    results = [result("away", {}, status="missing"), result("linked", {}, status="refused")]
    finals = {r.student: Final({}, 6.0) for r in results}
    assignment = type("A", (), {"assignment_id": "a", "tests": {"test_f": 3}, "max_score": 3.0})
    assert write_analysis(results, finals, assignment, tmp_path) == []
    page = (tmp_path / "report.html").read_text()
    assert "No notebook ran" in page and "base64" not in page


def test_a_test_cell_nobody_got_wrong_says_so(tmp_path):
    results = [result("a", {"test_f": 3}), result("b", {"test_f": 3})]
    finals = {r.student: Final(r.scores, 3.0) for r in results}
    assignment = type("A", (), {"assignment_id": "a", "tests": {"test_f": 3}, "max_score": 3.0})
    write_analysis(results, finals, assignment, tmp_path)
    assert "No wrong answers." in (tmp_path / "report.html").read_text()
