"""Method rules read from the learner's source: forbidden calls through any alias, dynamic lookups."""
import pytest

from autograder.grading.method_rules import AnswerSyntaxError, dynamic_lookups, forbidden_uses

LSE = ["torch.logsumexp", "torch.special.logsumexp", ".logsumexp"]


@pytest.mark.parametrize("source", [
    "import torch\ndef logsumexp(z, dim=-1):\n    return torch.logsumexp(z, dim)",
    "import torch as T\ndef logsumexp(z, dim=-1):\n    return T.logsumexp(z, dim)",
    "from torch import logsumexp as lse\ndef logsumexp(z, dim=-1):\n    return lse(z, dim)",
    "def logsumexp(z, dim=-1):\n    return z.logsumexp(dim)",
    "import torch\ndef logsumexp(z, dim=-1):\n    return getattr(torch, 'logsumexp')(z, dim)",
    "import torch\nspecial = torch.special\ndef logsumexp(z, dim=-1):\n    return special.logsumexp(z, dim)",
])
def test_a_forbidden_call_is_found_however_it_is_spelled(source):
    assert forbidden_uses(source, LSE), source


def test_own_names_and_allowed_calls_are_not_forbidden():
    source = ("import torch\ndef logsumexp(z, dim=-1):\n    m = z.amax(dim, keepdim=True)\n"
              "    return (m + (z - m).exp().sum(dim, keepdim=True).log()).squeeze(dim)")
    assert forbidden_uses(source, LSE) == []
    assert forbidden_uses("import math\nx = math.fsum([1.0])", ["math.fsum"]) == ["math.fsum (line 2)"]


def test_a_module_rule_forbids_everything_in_it():
    assert forbidden_uses("import numpy as np\nimport torch\n", ["torch"])
    assert forbidden_uses("from torch.nn import functional as F\ny = F.relu", ["torch"])
    assert forbidden_uses("import numpy as np\ny = np.float16(1)", ["torch"]) == []


def test_a_cell_that_does_not_parse_is_an_error_with_its_line():
    with pytest.raises(AnswerSyntaxError, match="line 2"):
        forbidden_uses("x = 1\ndef f(:\n", LSE)


def test_magics_parse_as_ipython_runs_them():
    assert forbidden_uses("%timeit 1 + 1\nimport math\nmath.fsum([])", ["math.fsum"])


@pytest.mark.parametrize("source, marker", [
    ("import sys\nf = sys._getframe(1)", "_getframe"),
    ("import linecache\nlinecache.getlines('x')", "linecache"),
    ("x = eval('1')", "eval"),
    ("m = __import__('torch')", "__import__"),
    ("import importlib\nm = importlib.import_module('torch')", "importlib"),
    ("import torch\nname = 'all' + 'close'\nf = getattr(torch, name)", "computed name"),
    ("import fplab.observe\nfplab.observe.observe = print", "replaces fplab.observe.observe"),
    ("import torch\ntorch.Tensor.detach = lambda t: t", "replaces torch.Tensor.detach"),
    ("import torch\nsetattr(torch, 'allclose', print)", "setattr on torch"),
    ("get_ipython().run_cell = None", "get_ipython"),
    ("from IPython import get_ipython\nip = get_ipython()", "get_ipython"),
    ("src = In[-1]", "reads In"),
    ("def f():\n    return f.__globals__", "__globals__"),
])
def test_dynamic_lookups_are_reported(source, marker):
    assert any(marker in line for line in dynamic_lookups(source)), dynamic_lookups(source)


def test_ordinary_code_is_not_reported():
    source = ("import math\nimport torch\nimport numpy as np\nimport torch.nn.functional as F\n"
              "def f(x):\n    y = torch.compile(lambda t: t * 2)(x)\n    return F.relu(y).sum().item() + math.pi")
    assert dynamic_lookups(source) == []


@pytest.mark.parametrize("source, context", [
    # bound in another cell (another answer, or one the learner added), called from this one
    ("def cross_entropy(z, t):\n    return _impl(z, t)", [("import torch.nn.functional as F\n_impl = F.cross_entropy", False)]),
    ("def cross_entropy(z, t):\n    return _helper(z, t)",
     [("import torch\ndef _helper(z, t):\n    return torch.nn.functional.cross_entropy(z, t)", False)]),
    # the notebook's own set-up cell names F: its imports count
    ("def cross_entropy(z, t):\n    return F.cross_entropy(z, t)", [("import torch.nn.functional as F\nx = 1", True)]),
    # re-exported through another module, looked up by a string
    ("from fplab.observe import torch as _t\ndef cross_entropy(z, t):\n    return _t.nn.functional.cross_entropy(z, t)", []),
    ("import operator, torch\n_f = operator.attrgetter('cross_entropy')(torch.nn.functional)", []),
    ("import pickle\n_f = pickle.loads(b'ctorch.nn.functional\\ncross_entropy\\n.')", []),
])
def test_a_forbidden_call_moved_elsewhere_or_spelled_as_a_string_is_found(source, context):
    assert forbidden_uses(source, ["torch.nn.functional.cross_entropy"], context), source


def test_a_module_rule_sees_torch_through_a_re_export_and_a_helper_cell():
    assert forbidden_uses("from fplab.observe import torch as _t\nx = _t.from_numpy", ["torch"])
    assert forbidden_uses("def cast(x):\n    return _helper(x)",
                          ["torch"], [("import torch\ndef _helper(x):\n    return torch.tensor(x)", False)])
    # a helper that is never used does not count, nor a released demo cell's code
    assert forbidden_uses("def cast(x):\n    return x", ["torch"], [("import torch\ny = torch.ones(1)", False)]) == []


@pytest.mark.parametrize("source, marker", [
    ("import torch\nf = torch.__getattribute__('logsumexp')", "__getattribute__"),
    ("import operator\nf = operator.attrgetter('x')", "operator"),
    ("import pickle\nf = pickle.loads(b'')", "pickle"),
    ("import torch\n[torch][0].is_anomaly_enabled = lambda: False", "an attribute of an expression"),
    ("import warnings\nwarnings.catch_warnings = object", "replaces warnings.catch_warnings"),
])
def test_more_dynamic_tricks_are_reported(source, marker):
    assert any(marker in line for line in dynamic_lookups(source)), dynamic_lookups(source)
