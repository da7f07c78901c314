"""The hidden-test lint: asserts, comparisons, checking calls, reference computations and
answer-like names are refused, with the cell and line; inputs and observations pass."""
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import CourseError
from autograder.lint import lint_notebook, lint_region

CLEAN = '''from fplab.observe import observe, observe_call
import torch
_g = torch.Generator().manual_seed(3)
_x = torch.randn(100, generator=_g) * 1e4
observe("values", logsumexp(_x), rtol=1e-6)
_r = observe_call("float64 input", ulp_distance, _x.double(), _x.double())
for _dtype in (torch.float16, torch.bfloat16):
    observe(f"dtype {_dtype}", logsumexp(_x.to(_dtype)).dtype)
'''


def test_inputs_and_observations_pass():
    assert lint_region(CLEAN, ["torch.logsumexp"]) == []


@pytest.mark.parametrize("line, marker", [
    ("assert logsumexp(_x) > 0", "an assert"),
    ("_ok = logsumexp(_x) == 3", "a comparison"),
    ("if logsumexp(_x) is None:\n    pass", "a comparison"),
    ("_ok = torch.allclose(logsumexp(_x), _x)", "torch.allclose"),
    ("import numpy as np\nnp.testing.assert_allclose(1, 1)", "numpy.testing"),
    ("_y = torch.logsumexp(_x, 0)", "reference computation"),
    ("import torch.nn.functional as F\n_y = F.cross_entropy(_x, _x)", "reference computation"),
    ("_y = _x.logsumexp(0)", "reference computation"),
    ("import math\n_y = math.fsum([1.0])", "reference computation"),
    ("_expected = [1, 2]", "'_expected'"),
    ("want = 3", "'want'"),
    ("def _check(x, ref):\n    return x", "'ref'"),
    ("observe('x', f(_x, expected=3))", "'expected'"),
])
def test_answers_in_the_kernel_are_refused(line, marker):
    found = lint_region(CLEAN + line + "\n", ["torch.logsumexp"])
    assert any(marker in what for _, what in found), found
    assert all(number > 8 for number, _ in found)


def test_a_notebook_finding_names_the_cell_and_line():
    test = new_code_cell("assert f(1) == 1\n### BEGIN HIDDEN TESTS\nobserve('a', f(2))\n_y = torch.logsumexp(_x, 0)\n"
                         "### END HIDDEN TESTS", metadata={"nbgrader": {"grade": True, "grade_id": "test_f"}})
    answer = new_code_cell("def f(x):\n    ### BEGIN SOLUTION\n    return x == 1\n    ### END SOLUTION",
                           metadata={"nbgrader": {"solution": True, "grade_id": "f"}})
    [finding] = lint_notebook("01_x", new_notebook(cells=[answer, test]))
    assert str(finding) == "01_x: test_f, hidden line 2: a call of torch.logsumexp (a reference computation)"


def test_a_hidden_region_that_does_not_parse_names_the_cell():
    test = new_code_cell("### BEGIN HIDDEN TESTS\nobserve('a', f(2)\n### END HIDDEN TESTS",
                         metadata={"nbgrader": {"grade": True, "grade_id": "test_f"}})
    with pytest.raises(CourseError, match="01_x: test_f: the hidden region does not parse"):
        lint_notebook("01_x", new_notebook(cells=[test]))
