"""The hidden-test lint: a hidden region may hold inputs and observations, never an answer.

The student's kernel can read everything a test cell holds while the learner's code runs (the
cell's source, the caller's locals, helpers), so a hidden region holds no ``assert``, no comparison,
no checking call (``torch.allclose``, ``np.testing``...), no call of a builtin an exercise asks
learners to re-implement (a reference computation), and no name such as ``expected``. Expected
values exist only in the reference run, in the trusted process. ``python -m autograder check``
refuses an assignment whose hidden regions break these rules, naming the cell and the line.
"""
import re
import textwrap
from dataclasses import dataclass

from autograder.course import CourseError, hidden_regions
from autograder.rule_lint import rule_errors
from fplab.rules.aliases import Aliases, attribute_chain
from fplab.rules.cells import AnswerSyntaxError, parse

ANSWER_NAME = re.compile(r"^_*(expected|expect|want|wants|wanted|ref|refs|reference|truth|answer|answers|correct|golden)(_|\d|$)",
                         re.IGNORECASE)
CHECKING_CALLS = ("torch.equal", "torch.allclose", "torch.isclose", "torch.testing", "numpy.testing",
                  "numpy.allclose", "numpy.isclose", "numpy.array_equal", "numpy.array_equiv", "math.isclose",
                  "unittest")
# Builtins the course's exercises re-implement: calling one in a hidden region computes an answer.
REFERENCE_CALLS = (
    "math.fsum", "torch.logsumexp", "torch.special.logsumexp", "torch.log_softmax", "torch.softmax",
    "torch.nn.functional.log_softmax", "torch.nn.functional.softmax", "torch.nn.functional.cross_entropy",
    "torch.nn.functional.nll_loss", "torch.nn.functional.softplus", "torch.nn.functional.normalize",
    "torch.nn.functional.binary_cross_entropy_with_logits", "torch.nn.functional.binary_cross_entropy",
    "torch.linalg.vector_norm", "torch.linalg.norm", "torch.norm", "torch.var", "torch.hypot",
    ".logsumexp", ".log_softmax", ".softmax", ".norm", ".var",
)


@dataclass(frozen=True)
class Finding:
    assignment: str
    cell: str
    line: int  # within the hidden region
    what: str

    def __str__(self):
        return f"{self.assignment}: {self.cell}, hidden line {self.line}: {self.what}"


class _Lint(Aliases):
    def __init__(self, forbidden_calls):
        super().__init__()
        self.forbidden_calls = forbidden_calls
        self.found = []

    def visit_Assert(self, node):
        self.found.append((node.lineno, "an assert (the judge compares; the kernel must not hold the answer)"))
        self.generic_visit(node)

    def visit_Compare(self, node):
        self.found.append((node.lineno, "a comparison (observe the value instead)"))
        self.generic_visit(node)

    def visit_Name(self, node):
        if ANSWER_NAME.match(node.id):
            self.found.append((node.lineno, f"the name {node.id!r} (an expected value has no place here)"))

    def visit_arg(self, node):
        if ANSWER_NAME.match(node.arg):
            self.found.append((node.lineno, f"the parameter {node.arg!r}"))

    def visit_keyword(self, node):
        if node.arg and ANSWER_NAME.match(node.arg):
            self.found.append((node.value.lineno, f"the keyword {node.arg!r}"))
        self.generic_visit(node)

    def visit_Call(self, node):
        name = self.dotted(node.func) or "".join(f".{a}" for a in attribute_chain(node.func)[1])  # f(x).exp: ".exp"
        method = f".{name.rsplit('.', 1)[-1]}" if "." in name else ""
        for entry in CHECKING_CALLS:
            if name == entry or name.startswith(entry + "."):
                self.found.append((node.lineno, f"a call of {name} (a check made in the kernel)"))
        for entry in self.forbidden_calls:
            if name == entry or name.startswith(entry + ".") or (entry.startswith(".") and method == entry):
                self.found.append((node.lineno, f"a call of {name} (a reference computation)"))
                break
        self.generic_visit(node)


def lint_region(region: str, reference_calls=()) -> list:
    """[(line, what)] for one hidden region, with ``reference_calls`` counted as reference
    computations besides :data:`REFERENCE_CALLS`; ValueError when it does not parse."""
    visitor = _Lint(sorted(set(REFERENCE_CALLS) | set(reference_calls)))
    try:
        visitor.visit(parse(textwrap.dedent(region)))
    except AnswerSyntaxError as error:
        raise ValueError(f"does not parse ({error})") from None
    return sorted(set(visitor.found))


def lint_notebook(assignment_id: str, source_nb) -> list:
    """Every :class:`Finding` in the hidden regions of a source notebook. Raises CourseError
    naming the cell when a hidden region does not parse, and naming the exercise and the entry
    when a method rule's allowlist does not resolve or does not match the exercise text."""
    errors = rule_errors(assignment_id, source_nb)
    if errors:
        raise CourseError(errors[0] + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    findings = []
    for index, cell in enumerate(source_nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("solution"):
            continue
        label = meta.get("grade_id") or f"cell {index + 1}"
        for region in hidden_regions(cell.source):
            try:
                found = lint_region(region)
            except ValueError as error:
                raise CourseError(f"{assignment_id}: {label}: the hidden region {error}") from None
            findings += [Finding(assignment_id, label, line, what) for line, what in found]
    return findings
