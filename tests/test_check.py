"""The grading self-check: every assignment's solutions, blank release and cases score as expected."""
import pytest

from conftest import ASSIGNMENTS, run_cli

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_autograder_check(assignment_id):
    done = run_cli("check", assignment_id)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all as expected" in done.stdout
