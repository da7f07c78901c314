"""The grading self-check: every assignment's solutions, blank release and cases score as expected.

One `check` of the whole course (one process, its workers and fork servers shared by all
assignments), read per assignment."""
import re

import pytest

from conftest import ASSIGNMENTS, run_cli

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


@pytest.fixture(scope="module")
def checked():
    """`check` of every assignment: (the process, {assignment id: its section of the report})."""
    done = run_cli("check")
    sections = re.split(rf"^(?=(?:{'|'.join(ASSIGNMENTS)})  \()", done.stdout, flags=re.M)
    return done, {section.split()[0]: section for section in sections[1:]}


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_every_case_scores_as_expected(checked, assignment_id):
    done, sections = checked
    assert assignment_id in sections, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [line for line in sections[assignment_id].splitlines() if line.startswith("  ") and " want " in line]
    assert rows and all(line.endswith(" ok") for line in rows), sections[assignment_id]
    assert any("every_assignment--" in line for line in rows)  # the generic attacks are graded too


def test_check_ends_all_as_expected(checked):
    done, _ = checked
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.rstrip().endswith("all as expected")
