"""Method rules are allowlists that fail closed over every cell a learner wrote (kernel-free)."""
from types import SimpleNamespace

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import Course
from autograder.rule_lint import rule_errors
from fplab.rules.allowlist import SHAPE_NOTE, unresolved_entries
from fplab.rules.cells import AnswerSyntaxError, defining_source, parse
from fplab.rules.review import dynamic_lookups
from autograder.grading.verdict import method_problems

SETUP = "import math\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nimport fplab"
FLOAT32 = ["torch.tensor", "torch.float32", "numpy.float32", ".numpy", ".detach", ".sum", ".shape"]
SOFTPLUS = ["torch.exp", "torch.log1p", "torch.clamp", "torch.abs", "torch.where", "torch.logaddexp",
            "torch.zeros_like", "torch.nn.functional.logsigmoid", ".exp", ".abs", ".to", ".dtype", "float"]
LSE = ["torch.exp", "torch.log", "torch.where", "torch.isfinite", "torch.zeros_like", ".amax", ".sum", ".exp",
       ".log", ".squeeze", ".detach", ".to", ".dtype", ".float"]
NUMPY = ["numpy.asarray", "numpy.float16", "numpy.float32", "numpy.uint32", ".astype", ".view", "math", "float"]
INTS = ["math.prod", ".append"]
KAHAN = ("def kahan_sum(x):\n    total, lost = np.float32(0), np.float32(0)\n    for v in x.numpy():\n"
         "        y = v - lost\n        t = total + y\n        lost = (t - total) - y\n        total = t\n"
         "    return torch.tensor(total, dtype=torch.float32)\n")


def problems(answer, allow, name="f", added=(), extra_release=()):
    """method_problems for a notebook: the release's set-up cell, the answer cell ``name``, then
    the cells the learner added."""
    release = [new_code_cell(SETUP), *[new_code_cell(s) for s in extra_release]]
    cells = [*release, new_code_cell(answer, metadata={"nbgrader": {"solution": True, "grade_id": name}}),
             new_code_cell("check()", metadata={"nbgrader": {"grade": True, "locked": True, "grade_id": f"test_{name}"}}),
             *[new_code_cell(s) for s in added]]
    assignment = SimpleNamespace(tests={f"test_{name}": 1}, rules={f"test_{name}": (name, allow)},
                                 released_code=frozenset(c.source for c in release) | {"check()"})
    return method_problems(new_notebook(cells=cells), assignment).get(f"test_{name}", "")


# Each attack of a hostile student: (answer cell, allowlist, the learner's added cells, what the message says)
ATTACKS = {
    "shape_method_rebound": ("def f(z, dim=-1):\n    return z.squeeze(dim)", LSE,
                             ("def _arm(t):\n    t.squeeze = torch.logsumexp\n_arm(torch.Tensor)",), "named like `.squeeze`"),
    "op_registry": ("def f(z):\n    return torch.ops.aten.special_logsumexp(z, [0])", LSE, (), "torch.ops"),
    "jit_get_operation": ("def f(z):\n    op = torch._C._jit_get_operation('aten::logsumexp')\n    return op(z, [0])",
                          LSE, (), "cannot tell"),
    "resolve_name": ("import pkgutil\ndef f(z):\n    return pkgutil.resolve_name('tor' + 'ch:logsumexp')(z, 0)",
                     LSE, (), "pkgutil"),
    "pydoc_locate": ("import pydoc\ndef f(z):\n    return pydoc.locate('torch.' + 'logsumexp')(z, 0)", LSE, (), "pydoc"),
    "timeit_string": ("import timeit\ndef f(z):\n    g = {'z': z}\n    timeit.timeit('r = torch.logsumexp(z, 0)', "
                      "number=1, globals=g)\n    return g['r']", LSE, (), "timeit"),
    "torchscript_source": ("def f(z):\n    cu = torch.jit.CompilationUnit('def g(z):\\n    return z.logsumexp(0)')\n"
                           "    return cu.g(z)", LSE, (), "torch.jit"),
    "getattr_in_map": ("def f(z):\n    [g] = map(getattr, [torch], ['logsum' + 'exp'])\n    return g(z, 0)", LSE, (), "map"),
    "getattr_in_reduce": ("from functools import reduce\ndef f(z):\n    return reduce(getattr, ['logsumexp'], torch)(z, 0)",
                          LSE, (), "functools"),
    "computed_getattr": ("def f(x):\n    return getattr(F, 'soft' + 'plus')(x)", SOFTPLUS, (), "getattr(F, ...)"),
    "to_complex128": ("def f(x):\n    return x.to(torch.complex128).sum().real.float()", FLOAT32, (), ".to"),
    "astype_float": ("def f(x):\n    return torch.tensor(x.numpy().astype(float).sum())", FLOAT32, (), ".astype"),
    "dtype_string": ("def f(x):\n    return torch.tensor(x.numpy().sum(dtype='f8'))", FLOAT32, (), "float64"),
    "dtype_positional": ("def f(x):\n    return torch.tensor(x.numpy().sum(0, 'd'))", FLOAT32, (), "float64"),
    "complex_literal": ("def f(x):\n    return (x + 0j).sum()", FLOAT32, (), "complex"),
    "python_float": ("def f(x):\n    return torch.tensor(float(x.sum()))", FLOAT32, (), "`float`"),
    "fplab_cast": ("def f(x, dtype):\n    return fplab.explorers.formats.cast(x, dtype)", NUMPY, (), "fplab"),
    "fplab_private": ("from fplab.explorers.formats import _round32\ndef f(x, dtype):\n    return _round32(x)", NUMPY,
                      (), "fplab.explorers.formats._round32"),
    "module_as_value": ("def f(z):\n    m = torch\n    return m.logsumexp(z, 0)", LSE, (), "module `torch`"),
    "module_in_a_list": ("def f(z):\n    return [torch][0].logsumexp(z, 0)", LSE, (), "module `torch`"),
    "dunder_dict": ("def f(z):\n    return torch.__dict__['logsumexp'](z, 0)", LSE, (), "__dict__"),
    "vars_lookup": ("def f(z):\n    return vars(torch)['logsumexp'](z, 0)", LSE, (), "vars"),
    "sys_modules": ("import sys\ndef f(z):\n    return sys.modules['torch'].logsumexp(z, 0)", LSE, (), "sys"),
    "importlib": ("import importlib\ndef f(z):\n    return importlib.import_module('torch').logsumexp(z, 0)", LSE, (),
                  "importlib"),
    "attrgetter": ("import operator\ndef f(z):\n    return operator.attrgetter('logsumexp')(torch)(z, 0)", LSE, (),
                   "operator"),
    "star_import": ("from torch import *\ndef f(z):\n    return logsumexp(z, 0)", LSE, (), "import *"),
    "type_of_value": ("def f(x):\n    return type(x).double(x).sum().float()", FLOAT32, (), "type"),
    "unbound_tensor_method": ("def f(x):\n    return torch.Tensor.double(x).sum().float()", FLOAT32, (), "torch.Tensor"),
    "builtin_as_value": ("def f(z):\n    g = __builtins__\n    return z", LSE, (), "__builtins__"),
    "eval_string": ("def f(z):\n    return eval('torch.logsumexp')(z, 0)", LSE, (), "eval"),
    "decorator": ("@torch.jit.script\ndef f(z):\n    return z", LSE, (), "torch.jit"),
    "default_argument": ("def f(x, wide=torch.float64):\n    return x.sum()", FLOAT32, (), "torch.float64"),
    "annotation_call": ("def f(x: torch.set_default_dtype(torch.float64)):\n    return x.sum()", FLOAT32, (),
                        "annotation"),
    "self_method_unbound": ("class A:\n    def double(self):\n        return self\n    def g(self):\n"
                            "        return self.double()\ndef f(x):\n    return A.g(x)", FLOAT32, (), ".g"),
    "self_reassigned": ("class A:\n    def double(self):\n        return 1\n    def g(self, x):\n        self = x\n"
                        "        return self.double()\ndef f(x):\n    return A().g(x)", FLOAT32, (), ".double"),
    "store_on_value": ("def f(x):\n    t = torch.tensor(0.0)\n    t.sum = x.sum\n    return x", FLOAT32, (), "assigning"),
    "unknown_name": ("def f(x):\n    return In[-1]", FLOAT32, (), "cannot tell what `In`"),
    "class_keyword": ("class A(metaclass=type):\n    pass\ndef f(x):\n    return x.sum()", FLOAT32, (), "metaclass"),
    "relative_import": ("from . import something\ndef f(x):\n    return x", FLOAT32, (), "relative import"),
    # code outside the answer cell
    "helper_in_if_block": ("def f(x):\n    return _h(x)", FLOAT32,
                           ("if True:\n    def _h(x):\n        return x.double().sum().float()",), ".double"),
    "redefined_later": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                        ("def f(x):\n    return x.double().sum().float()",), ".double"),
    "redefined_in_try": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                         ("try:\n    pass\nfinally:\n    f = lambda x: x.double().sum()",), ".double"),
    "redefined_by_for": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                         ("for f in [lambda x: math.fsum(x)]:\n    pass",), "math"),
    "redefined_by_walrus": ("def f(x):\n    raise NotImplementedError", FLOAT32, ("(f := math.fsum)",), "math"),
    "redefined_by_import": ("def f(x):\n    raise NotImplementedError", FLOAT32, ("from math import fsum as f",),
                            "math.fsum"),
    "redefined_through_global": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                                 ("def install():\n    global f\n    f = lambda x: x.double()\ninstall()",), ".double"),
    "redefined_in_with": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                          ("import contextlib\nwith contextlib.nullcontext(math.fsum) as f:\n    pass",), "contextlib"),
    "redefined_by_time_magic": ("def f(x):\n    raise NotImplementedError", FLOAT32,
                                ("%time f = lambda x: x.double()",), ".double"),
    "globals_item": ("def f(x):\n    return x.sum()", FLOAT32, ("globals()['f'] = lambda x: x.double()",), "globals"),
    "exec_in_added_cell": ("def f(x):\n    return x.sum()", FLOAT32, ("exec('f = 1')",), "exec"),
    "setattr_module": ("def f(x):\n    return x.sum()", FLOAT32, ("setattr(torch.Tensor, 'sum', torch.Tensor.double)",),
                       "setattr"),
    "patch_module_attribute": ("def f(z):\n    return torch.exp(z)", LSE, ("torch.exp = torch.logsumexp",), "torch.exp"),
    "patch_tensor_method": ("def f(x):\n    return x.sum()", FLOAT32,
                            ("torch.Tensor.sum = lambda t: t.double().sum()",), "torch.Tensor.sum"),
    "patch_through_alias": ("def f(x):\n    return x.sum()", FLOAT32,
                            ("T = torch.Tensor\nT.sum = lambda t: t.double().sum()",), "`T.sum`"),
    "patch_through_parameter": ("def f(x):\n    return x.sum()", FLOAT32,
                                ("class P:\n    def put(self):\n        self.sum = lambda t: 0\nP.put(torch.Tensor)",),
                                "`self.sum`"),
    "patch_builtins": ("def f(x):\n    return len(x)", FLOAT32, ("import builtins\nbuiltins.len = lambda x: 0",),
                       "builtins"),
    "default_dtype": ("def f(x):\n    return torch.tensor(0.0) + x.sum()", FLOAT32,
                      ("torch.set_default_dtype(torch.float64)",), "set_default_dtype"),
    "run_magic": ("def f(x):\n    return x.sum()", FLOAT32, ("%run evil.py",), "get_ipython"),
    "frame_globals": ("def f(x):\n    return x.sum()", FLOAT32,
                      ("import inspect\ninspect.currentframe().f_globals['f'] = len",), "f_globals"),
    # Code from data: a pickle's REDUCE, a module the notebook wrote, imports from elsewhere.
    "pickle_in_torch_load": ("def f(x):\n    return x.sum()", FLOAT32,
                             ("import io\nstate = torch.load(io.BytesIO(b'...'), weights_only=False)",),
                             "without weights_only=True"),
    "torch_load_default": ("def f(x):\n    return x.sum()", FLOAT32, ("from torch import load\nload('s.pt')",),
                           "without weights_only=True"),
    "numpy_pickle": ("def f(x):\n    return x.sum()", FLOAT32, ("np.load('s.npy', allow_pickle=True)",),
                     "without allow_pickle=False"),
    "writefile_then_import": ("def f(x):\n    return x.sum()", FLOAT32,
                              ("%%writefile helper.py\nimport torch\ntorch.Tensor.sum = torch.Tensor.double",),
                              "get_ipython"),
    "load_ext_of_own_file": ("def f(x):\n    return x.sum()", FLOAT32, ("%load_ext helper",), "get_ipython"),
    "sys_path": ("def f(x):\n    return x.sum()", FLOAT32, ("import sys\nsys.path.insert(0, '/tmp')\nimport helper",),
                 "changes where imports come from"),
    "site_dir": ("def f(x):\n    return x.sum()", FLOAT32, ("import site\nsite.addsitedir('/tmp')",), "`site`"),
    # A class pattern reads the subject's attributes by keyword, and by position (__match_args__).
    "match_dunder_chain": ("def f(z):\n    match z:\n        case object(__class__=object(__base__=object(logsumexp=g))):\n"
                           "            return g(z, 0)", LSE, (), "`__class__=` in a class pattern"),
    "match_keyword_attribute": ("def f(z):\n    match z:\n        case object(logsumexp=g):\n            return g(0)",
                                LSE, (), "`.logsumexp`"),
    "match_positional": ("class T(torch.Tensor):\n    __match_args__ = ('logsumexp',)\n\ndef f(z):\n"
                         "    match z:\n        case T(g):\n            return g(0)", LSE, (), "by position"),
    # A method run unbound, with a tensor as `self`: `self.logsumexp` is then Tensor.logsumexp.
    "unbound_method": ("class H:\n    logsumexp = None\n\n    def exp(self, dim):\n        return self.logsumexp(dim)\n\n"
                       "def f(z):\n    return H.exp(z, 0)", LSE, (), "reads from the class `H` itself"),
    "class_alias": ("class H:\n    logsumexp = None\n\n    def exp(self, dim):\n        return self.logsumexp(dim)\n\n"
                    "def f(z):\n    K = H\n    return K.exp(z, 0)", LSE, (), "the class `H` is passed as a value"),
    "local_class_unbound": ("def f(z):\n    class H:\n        logsumexp = None\n        def exp(self):\n"
                            "            return self.logsumexp(0)\n    return H.exp(z)", LSE, (), "reads from the class `H`"),
    # An annotation is evaluated when the function is defined: a lookup like any other.
    "annotation_builtin": ("def f(z) -> torch.logsumexp:\n    return z.exp()", LSE, (), "`torch.logsumexp`"),
    "annotation_in_added_helper": ("def f(z):\n    return g(z)", LSE,
                                   ("def g(z, h: torch.special.logsumexp = None):\n    return z.exp()",),
                                   "`torch.special` is not on this exercise's list"),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_attack_costs_the_exercise_with_a_plain_message(name):
    answer, allow, added, marker = ATTACKS[name]
    why = problems(answer, allow, added=added)
    assert why.startswith("this exercise's method rule: ") and marker in why, why


def test_a_name_the_notebook_defines_is_not_on_the_list():
    why = problems("def f(x):\n    return helper(x)", FLOAT32, extra_release=("def helper(x):\n    return x",))
    assert "`helper` is the notebook's own, not on this exercise's list" in why


def test_the_message_names_the_line_and_says_what_to_do():
    why = problems("import torch\n\ndef f(x):\n    return getattr(F, 'soft' + 'plus')(x)", SOFTPLUS)
    assert "f, line 4: the grader cannot tell what `getattr(F, ...)` calls; write the call out by name" in why
    why = problems("def f(x):\n    return x.sum(dtype=torch.float64)", FLOAT32)
    assert "f, line 2: `torch.float64` is not on this exercise's list of what you may call" in why
    assert "redefined_later" and "cell 4, line 2" in problems(*ATTACKS["redefined_later"][:2],
                                                              added=ATTACKS["redefined_later"][2])


HONEST = {
    "kahan_loop": (KAHAN, FLOAT32 + [".flip"], ()),
    "shape_operations_on_any_list": (
        "def f(z, dim=-1):\n    m = torch.unsqueeze(z.detach().amax(dim), dim).contiguous()\n"
        "    flat = (z - m).exp().view(-1, z.size(-1)).reshape(z.shape)\n"
        "    return torch.squeeze(m + torch.log(flat.sum(dim, keepdim=True)), dim)", LSE, ()),
    "reduce_over_allowed_function": ("import functools\ndef f(z, dim=-1):\n"
                                     "    return functools.reduce(torch.logaddexp, z.unbind(dim))",
                                     ["torch.logaddexp", "functools.reduce"], ()),
    "kahan_indexing_and_helper_cell": (
        "def kahan_sum(x):\n    values = x.detach().numpy()\n    s, c = _start()\n    for i in range(len(values)):\n"
        "        s, c = _step(s, c, values[i])\n    return torch.tensor(s + c, dtype=torch.float32)\n",
        FLOAT32, ("def _start():\n    return np.float32(0), np.float32(0)\n\n"
                  "def _step(s, c, a):\n    t = s + a\n    back = t - a\n    return t, c + ((s - back) + (a - (t - back)))",
                  "%timeit kahan_sum(torch.ones(10))\nprint(kahan_sum(torch.ones(3)), type(kahan_sum(torch.ones(1))))",
                  "!ls\n%matplotlib inline\nx = torch.ones(3)\nx.grad = None\ntorch.backends.cudnn.allow_tf32 = False")),
    "softplus_where": ("def f(x):\n    if not isinstance(x, (torch.Tensor, float)):\n        raise TypeError(f'got {x!r}')\n"
                       "    return torch.where(x > 0, x + torch.log1p(torch.exp(-x.abs())), torch.log1p(torch.exp(x)))",
                       SOFTPLUS + ["torch.Tensor"], ()),
    "softplus_wide_and_lambda": ("def f(x):\n    g = lambda v: -F.logsigmoid(-v)\n    return g(x.to(torch.float64)).to(x.dtype)",
                                 SOFTPLUS + ["torch.float64"], ()),
    "lse_comprehension_and_inf": ("def f(z, dim=-1):\n    m = z.detach().amax(dim, keepdim=True)\n"
                                  "    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\n"
                                  "    parts = [t for t in (z - m).exp().sum(dim, keepdim=True).log()]\n"
                                  "    return (m + torch.log((z - m).exp().sum(dim, keepdim=True))).squeeze(dim)",
                                  LSE, ()),
    "numpy_cast": ("def f(x, dtype):\n    try:\n        a = np.asarray(x, dtype=np.float32)\n    except (TypeError, ValueError):\n"
                   "        raise\n    if dtype == 'float16':\n        return a.astype('float16')\n"
                   "    return a.view(np.uint32).view(np.float32) * math.copysign(1.0, 1.0)", NUMPY, ()),
    "int_counts": ("def f(n, d):\n    products = []\n    for _ in range(n):\n        products.append(2 * d * d)\n"
                   "    total = sum(products) + math.prod([n, d])\n    return dict(forward=total, backward=2 * total)", INTS, ()),
    "safe_loads": ("def f(x):\n    return x.sum()", FLOAT32,
                   ("state = torch.load('s.pt', weights_only=True)\narr = np.load('a.npy')\n"
                    "ok = np.load('b.npy', allow_pickle=False)",)),
    "annotations_name_types": ("def f(z: torch.Tensor, dim: int = -1) -> torch.Tensor:\n"
                               "    m: torch.Tensor = z.amax(dim, keepdim=True).detach()\n"
                               "    return (m + torch.log((z - m).exp().sum(dim, keepdim=True))).squeeze(dim)", LSE, ()),
    "match_on_builtins": ("def f(z, dim=-1):\n    match dim:\n        case int(d):\n            pass\n"
                          "        case _:\n            raise TypeError('dim')\n"
                          "    m = z.amax(d, keepdim=True).detach()\n"
                          "    return (m + torch.log((z - m).exp().sum(d, keepdim=True))).squeeze(d)", LSE, ()),
    "instance_of_own_class": ("class _LogSumExp:\n    def __init__(self, dim):\n        self.axis = dim\n\n"
                              "    def __call__(self, z):\n        m = z.amax(self.axis, keepdim=True).detach()\n"
                              "        return (m + torch.log((z - m).exp().sum(self.axis, keepdim=True))).squeeze(self.axis)\n\n"
                              "def f(z, dim=-1):\n    return _LogSumExp(dim)(z)", LSE, ()),
    "class_with_self_state": ("class f:\n    def __init__(self, scale=2.0):\n        self.scale = float(scale)\n"
                              "        self._steps = 0\n    def update(self, found_inf):\n        if found_inf:\n"
                              "            self.scale *= 0.5\n        self._steps += 1\n    def get(self):\n"
                              "        return self.scale\n", ["float"], ()),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_answers_in_several_styles_pass(name):
    answer, allow, added = HONEST[name]
    graded = "kahan_sum" if answer.startswith("def kahan_sum") else "f"
    assert problems(answer, allow, name=graded, added=added) == ""


def test_a_cell_that_does_not_parse_scores_zero_with_its_line():
    assert "not valid Python (line 2" in problems("x = 1\ndef f(:\n", FLOAT32)
    with pytest.raises(AnswerSyntaxError, match="line 2"):
        parse("x = 1\ndef f(:\n")


def test_the_feedback_page_shows_the_code_that_defined_the_graded_name():
    answer = "def f(x):\n    raise NotImplementedError"
    cells = [new_code_cell(answer, metadata={"nbgrader": {"solution": True, "grade_id": "f"}}),
             new_code_cell("if True:\n    def f(x):\n        return x.double()")]
    shown = defining_source(new_notebook(cells=cells), frozenset(), "f")
    assert shown.startswith(answer) and "cell 2 also binds f" in shown and "x.double()" in shown


def test_an_entry_that_does_not_resolve_is_named():
    assert unresolved_entries(["torch.exp", "torch.exq", ".exp", ".nonsense_method", "float", "nonsense",
                               "pkgutil.resolve_name"]) == ["torch.exq", ".nonsense_method", "nonsense",
                                                            "pkgutil.resolve_name"]


def _exercise(allow, text, test='with visible_checks("f"):\n    check_rule("f")\n'):
    return new_notebook(cells=[new_markdown_cell(text), new_code_cell(
        "def f(x):\n    return x", metadata={"nbgrader": {"solution": True, "grade_id": "f"}, "finite": {"allow": allow}}),
        new_code_cell(test, metadata={"nbgrader": {"grade": True, "grade_id": "test_f", "locked": True}})])


def test_the_text_and_the_metadata_must_state_the_same_list():
    good = f"**What you may call**: `torch.exp`, `.sum`; {SHAPE_NOTE}.\n\nAnything else costs this exercise's points."
    assert rule_errors("01_x", _exercise(["torch.exp", ".sum"], good)) == []
    assert rule_errors("01_x", _exercise(["torch.exp", ".sum"], good.replace(SHAPE_NOTE, "shapes"))) == [
        "01_x: f: the **What you may call** paragraph does not state fplab.rules.SHAPE_NOTE"]
    assert rule_errors("01_x", _exercise(["torch.exp", ".sum", ".view"], good.replace("`.sum`", "`.sum`, `.view`"))) == [
        "01_x: f: the allowlist entry '.view' is a shape operation, allowed on every list: drop it"]
    assert rule_errors("01_x", _exercise(["torch.exp", ".sum", ".abs"], good)) == [
        "01_x: f: the allowlist entry '.abs' is not in the text's **What you may call** list"]
    assert "does not resolve" in rule_errors("01_x", _exercise(["torch.exq"], good.replace("torch.exp", "torch.exq")))[0]
    assert "anything else costs" in rule_errors("01_x", _exercise(["torch.exp", ".sum"], good.split("\n\n")[0]))[0]
    assert rule_errors("01_x", _exercise(["torch.exp", ".sum"], good, test="### BEGIN HIDDEN TESTS\ncheck_rule('f')")) == [
        "01_x: f: its visible test does not call check_rule('f') (fplab.rule_check: a learner sees a breach before "
        "submitting)"]
    retired = _exercise(["torch.exp", ".sum"], good)
    retired.cells[1].metadata["finite"]["forbid"] = ["torch.exp"]
    assert "forbid is retired" in rule_errors("01_x", retired)[0]


def test_every_course_allowlist_resolves_and_matches_its_text():
    course = Course(".")
    for assignment_id in course.assignment_ids():
        assert rule_errors(assignment_id, course.source_notebook(assignment_id)) == []


@pytest.mark.parametrize("source, marker", [
    ("import sys\nf = sys._getframe(1)", "_getframe"),
    ("import linecache\nlinecache.getlines('x')", "linecache"),
    ("x = eval('1')", "eval"),
    ("import torch\nname = 'all' + 'close'\nf = getattr(torch, name)", "computed name"),
    ("import fplab.observe\nfplab.observe.observe = print", "replaces fplab.observe.observe"),
    ("import torch\nsetattr(torch, 'allclose', print)", "setattr on torch"),
    ("src = In[-1]", "reads In"),
])
def test_dynamic_lookups_elsewhere_are_listed_for_review(source, marker):
    found = dynamic_lookups(source)
    assert any(marker in text and line >= 1 for line, text in found), found
