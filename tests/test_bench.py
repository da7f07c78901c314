"""The benchmarks run to the end at small sizes and print figures with a verdict (not timed here)."""
import os
import re
import shutil
import sys

import pytest

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


def test_bench_prints_each_notebook_against_the_floor():
    done = run_cli("bench", "02_norm_overflow", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    assert re.search(r"floor \(kernel start \+ import torch\): \d+\.\d\d s", done.stdout)
    assert re.search(r"02_norm_overflow(\s+\d+\.\d\d){4}  <= 2x (met|OVER)", done.stdout), done.stdout


@pytest.mark.skipif(shutil.which("bwrap") is None and not os.environ.get("CI"), reason="bubblewrap is not installed")
def test_bench_grading_compares_serial_nbgrader_local_workers_and_dask(tmp_path):
    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0
    done = run_cli("--course", str(course), "bench", "--grading", ASSIGNMENT, "--students", "2", "--workers", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "serial nbgrader autograde" in out and "the reference run" in out and "a class of 300 on one 16-core machine" in out
    for label in ("1 local worker(s)", "2 local worker(s)", "Dask, 2 workers"):
        assert re.search(rf"grade, {re.escape(label)}\s+\d+\.\d s\s+\d+\.\d notebooks/min\s+\d+\.\d\dx serial "
                         r"nbgrader \(goal >= \d\.\dx: (met|NOT met)", out), out
    assert re.search(r"sandbox cost [+-]\d+\.\d % \(goal <= \+10 %: (met|NOT met)\)", out), out


def test_bench_profile_prints_each_step_of_one_graded_notebook():
    done = run_cli("bench", "--profile", "02_norm_overflow", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    for step in ("admit", "sandbox up", "the notebook's cells", "sandbox down", "judge", "feedback page", "in all"):
        assert re.search(rf"  {re.escape(step)}.*\s\d+\.\d\d s$", done.stdout, re.M), done.stdout
    assert re.search(r"the grader's own share \(all but the cells\): \d+\.\d\d s; .* import torch.*: \d+\.\d\d s",
                     done.stdout), done.stdout
