"""`python -m autograder explain`: what grades each exercise, read from the source and cases/."""
import pytest

from conftest import ROOT, run_cli

from autograder.course import Course, CourseError
from autograder.explain import exercises, explain


def test_each_exercise_names_its_cells_rule_observations_and_cases():
    found = {e.test: e for e in exercises(Course(ROOT), "01_nonassociativity")}
    kahan = found["test_kahan_sum"]
    assert kahan.answer == "kahan_sum" and kahan.points > 0 and 0 < kahan.cells[0] < kahan.cells[1]
    assert "torch.float32" in kahan.rule and found["test_ulp_distance"].rule is None
    assert "empty" in kahan.observations
    wants = dict(kahan.cases)
    assert wants["kahan_sum--wrong--calls_math_fsum"] == "0 points"
    assert wants["kahan_sum--right--neumaier"] == "full marks"
    assert not any(name.startswith("ulp_distance--") for name in wants)


def test_one_grade_id_or_a_clear_error():
    text = explain(Course(ROOT), "01_nonassociativity", "kahan_sum")
    assert text.startswith("kahan_sum -> test_kahan_sum") and "ulp_distance" not in text
    with pytest.raises(CourseError, match="no graded cell 'nope'"):
        explain(Course(ROOT), "01_nonassociativity", "nope")


def test_the_command_prints_it():
    done = run_cli("explain", "01_nonassociativity", "test_kahan_sum")
    assert done.returncode == 0 and "method rule: " in done.stdout and "kahan_sum--wrong--" in done.stdout
