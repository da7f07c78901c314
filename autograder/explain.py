"""``python -m autograder explain ID [GRADE_ID]``: for each exercise of an assignment, what grades it:
its answer and test cells, its points, its method rule, the observations its hidden tests make, and
its self-check cases. For authors and graders (it reads the source: never for learners)."""
import ast
import textwrap
from dataclasses import dataclass

from autograder.cases import load_cases
from autograder.course import CourseError, answer_cells, answer_of, graded_tests, hidden_regions
from autograder.grading.assignment import load_assignment
from fplab.rules import SHAPE_ENTRIES


@dataclass(frozen=True)
class Exercise:
    """One graded exercise, as the source and cases/ define it."""

    test: str  # the test cell's grade id
    points: float
    answer: str  # the answer cell's grade id ("" for a test with none)
    cells: tuple  # (answer cell number, test cell number) in the source notebook, 1-based; 0: none
    rule: tuple | None  # the method rule's entries (None: no rule)
    observations: tuple  # the names its hidden tests observe
    cases: tuple  # (case name, what must happen) of cases/ID and the generic attacks aimed at it


def observed_names(region: str) -> tuple:
    """The names a hidden region passes to ``observe`` / ``observe_call``, in order: a literal as
    its text, a computed name (an f-string in a loop) as its source."""
    names = []
    for node in ast.walk(ast.parse(region)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in \
                ("observe", "observe_call") and node.args:
            first = node.args[0]
            names.append(str(first.value) if isinstance(first, ast.Constant) else ast.unparse(first))
    return tuple(names)


def exercises(course, assignment_id: str) -> list:
    """Every graded exercise of ``assignment_id``, in notebook order."""
    source_nb = course.source_notebook(assignment_id)
    assignment = load_assignment(course, assignment_id)
    where = {cell.metadata.get("nbgrader", {}).get("grade_id"): index + 1 for index, cell in enumerate(source_nb.cells)}
    solutions = answer_cells(source_nb)
    cases = load_cases(course, assignment_id, solutions)
    found = []
    for test, points in graded_tests(source_nb).items():
        answer = answer_of(test) if answer_of(test) in solutions else ""
        regions = hidden_regions(source_nb.cells[where[test] - 1].source, solutions=False)
        rule = assignment.rules.get(test)
        aimed = tuple((case.name, "0 points" if case.failing == test else "some, not all" if case.partial == test
                       else "full marks") for case in cases if test in (case.failing, case.partial)
                      or (case.answers and answer in case.answers and not case.attack))
        found.append(Exercise(test, float(points), answer, (where.get(answer, 0), where[test]),
                              tuple(rule[1]) if rule else None,
                              tuple(n for region in regions for n in observed_names(region)), aimed))
    return found


def explain(course, assignment_id: str, grade_id: str = "") -> str:
    """The text ``explain`` prints: every exercise, or the one whose answer or test is ``grade_id``."""
    chosen = [e for e in exercises(course, assignment_id) if not grade_id or grade_id in (e.test, e.answer)]
    if not chosen:
        raise CourseError(f"{assignment_id} has no graded cell {grade_id!r}")
    lines = []
    for e in chosen:
        rule = ", ".join(x for x in e.rule if x not in SHAPE_ENTRIES) + " (+ shape operations)" if e.rule else "none"
        lines += [f"{e.answer or '(no answer cell)'} -> {e.test}: {e.points:g} points "
                  f"(source cells {e.cells[0] or '-'} and {e.cells[1]})",
                  textwrap.fill("method rule: " + rule, 100, initial_indent="  ", subsequent_indent="    "),
                  textwrap.fill("hidden tests observe: " + (", ".join(e.observations) or "nothing"), 100,
                                initial_indent="  ", subsequent_indent="    "),
                  f"  cases ({len(e.cases)}):"]
        lines += [f"    {name}: {want}" for name, want in e.cases]
    return "\n".join(lines)
