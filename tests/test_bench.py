"""The benchmarks run to the end at small sizes and print their figures, each verdict the one its
figure gives (the times themselves are not judged here)."""
import re
import sys

import pytest

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


def figures(pattern, out):
    """The numbers ``pattern``'s groups match in ``out`` (named groups by name), a verdict group as is;
    AssertionError where ``pattern`` matches no line."""
    found = re.search(pattern, out, re.M)
    assert found, f"no line matches {pattern!r} in:\n{out}"
    return {name: value if name == "verdict" else float(value) for name, value in found.groupdict().items()}


def test_bench_prints_each_notebook_s_figures_and_the_verdict_they_give():
    done = run_cli("bench", "02_norm_overflow", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    floor = figures(r"floor \(kernel start \+ import torch\): (?P<floor>\d+\.\d\d) s", done.stdout)["floor"]
    row = figures(r"^02_norm_overflow\s+(?P<plain>\S+)\s+(?P<graded>\S+)\s+(?P<floor>\S+)\s+(?P<ratio>\S+)  "
                  r"<= (?P<goal>[\d.]+)x (?P<verdict>met|OVER)$", done.stdout)
    assert min(floor, row["plain"], row["graded"], row["ratio"]) > 0 and row["floor"] == floor, row
    assert abs(row["ratio"] - row["graded"] / floor) <= 0.01 + 0.01 * row["ratio"], row  # its figures, rounded
    assert row["verdict"] == ("met" if row["ratio"] <= row["goal"] else "OVER"), row


@pytest.mark.sandbox
def test_bench_grading_prints_its_figures_and_the_verdicts_they_give(tmp_path):
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    done = run_cli("--course", str(course), "bench", "--grading", ASSIGNMENT, "--students", "2", "--workers", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    serial = figures(r"serial nbgrader autograde\s+(?P<seconds>\d+\.\d) s\s+(?P<each>\d+\.\d\d) s/submission", out)
    assert serial["seconds"] > 0 and serial["each"] > 0, serial
    assert figures(r"the reference run .*: (?P<seconds>\d+\.\d) s$", out)["seconds"] > 0
    assert figures(r"a class of 300 on one 16-core machine .*: about (?P<minutes>\d+\.\d) min", out)["minutes"] > 0
    for label in ("1 local worker(s)", "2 local worker(s)", "Dask, 2 workers"):
        run = figures(rf"grade, {re.escape(label)}\s+(?P<seconds>\d+\.\d) s\s+(?P<rate>\d+\.\d) notebooks/min\s+"
                      r"(?P<speedup>\d+\.\d\d)x serial nbgrader \(goal >= (?P<goal>\d\.\d)x: (?P<verdict>met|NOT met)", out)
        assert min(run["seconds"], run["rate"], run["speedup"]) > 0, (label, run)
        assert run["verdict"] == ("met" if run["speedup"] >= run["goal"] else "NOT met"), (label, run)
    cost = figures(r"plain kernel (?P<plain>\d+\.\d\d) s, sandboxed (?P<boxed>\d+\.\d\d) s\s+sandbox cost "
                   r"(?P<cost>[+-]\d+\.\d) % \(goal <= \+10 %: (?P<verdict>met|NOT met)\)", out)
    assert cost["plain"] > 0 and cost["boxed"] > 0, cost
    assert cost["verdict"] == ("met" if cost["cost"] <= 10 else "NOT met"), cost


def test_bench_profile_prints_each_step_of_one_graded_notebook():
    done = run_cli("bench", "--profile", "02_norm_overflow", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    for step in ("admit", "sandbox up", "the notebook's cells", "sandbox down", "verdict", "feedback page", "in all"):
        assert re.search(rf"  {re.escape(step)}.*\s\d+\.\d\d s$", done.stdout, re.M), done.stdout
    assert re.search(r"the grader's own share \(all but the cells\): \d+\.\d\d s; .* import torch.*: \d+\.\d\d s",
                     done.stdout), done.stdout
