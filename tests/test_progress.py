"""fplab.progress: the learner's summary of visible checks, demos that wait, the quiz guard."""
import os

import pytest

from fplab import progress


@pytest.fixture(autouse=True)
def fresh():
    progress._found.clear()
    yield
    progress._found.clear()


def test_summary_reports_passed_failed_and_not_attempted(capsys):
    with progress.visible_checks("a"):
        pass
    with pytest.raises(AssertionError):
        with progress.visible_checks("b"):
            assert False, "return an int64 tensor\nmore detail"
    with pytest.raises(NotImplementedError):
        with progress.visible_checks("c"):
            raise NotImplementedError()
    capsys.readouterr()
    progress.summary({"a": 3, "b": 2, "c": 1, "d": 2})
    text = capsys.readouterr().out
    lines = text.splitlines()
    # a pass never reads as a verdict: the row says that the grader checks more
    assert lines[2].split() == ["a", "3", "pass;", "the", "grader", "checks", "more"]
    assert "passed" not in text
    assert "fail (AssertionError: return an int64 tensor)" in lines[3] and "more detail" not in text
    assert lines[4].split()[:4] == ["c", "1", "not", "attempted"]
    assert "d" in lines[5] and "its test cell has not run" in lines[5]
    assert "1 of 4 exercises pass their visible checks. That is not a score" in text


def test_a_passing_block_says_so(capsys):
    with progress.visible_checks("a"):
        pass
    assert capsys.readouterr().out == "a: visible checks passed\n"


def test_a_later_run_replaces_the_earlier_record(capsys):
    with pytest.raises(AssertionError):
        with progress.visible_checks("a"):
            assert False, "wrong"
    with progress.visible_checks("a"):
        pass
    progress.summary({"a": 1})
    assert "1 of 1 exercises" in capsys.readouterr().out


def test_demo_prints_one_line_for_a_stub_and_lets_other_errors_through(capsys):
    with progress.demo("ulp_distance"):
        raise NotImplementedError()
    assert capsys.readouterr().out.count("\n") == 1
    with pytest.raises(ZeroDivisionError):
        with progress.demo("ulp_distance"):
            1 / 0


def test_require_answers_names_what_is_missing():
    progress.require_answers({"q1": "a"}, "q1")
    with pytest.raises(NameError, match="answer the quiz first: q2"):
        progress.require_answers({"q1": "a"}, "q1", "q2")


def test_workdir_is_made_once_per_prefix():
    first = progress.workdir("finite-test-")
    assert progress.workdir("finite-test-") == first and os.path.isdir(first)
