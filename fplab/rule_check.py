"""The method rule, checked by a visible test in the learner's kernel: the grader's check, early.

A rule-bearing exercise's test cell calls :func:`check_rule`, which reads the learner's saved
notebook (each cell as it last ran in this kernel, where JupyterLab says which cell ran) and checks
it with :func:`fplab.rules.checker.exercise_problems`, the function the grader runs outside the kernel on
the submission, so a breach fails the visible checks with the grader's own message. It is advice:
during grading it does nothing, and the grader's own check is the one that counts.
"""
import os
import warnings
from pathlib import Path

from fplab.rules.cells import ReleasedDigests
from fplab.rules.checker import exercise_problems

_ran: dict = {}  # cell id -> its source as it last ran in this kernel


def record_cell(info) -> None:
    """IPython's ``pre_run_cell`` hook: remember what ran in which cell (JupyterLab sends the id)."""
    if getattr(info, "cell_id", None):
        _ran[info.cell_id] = info.raw_cell


def notebook_path() -> Path | None:
    """The learner's notebook: the one this kernel's session names, else ``NN_topic.ipynb`` in the
    kernel's folder (``release/NN_topic/``, where Validate runs it)."""
    session = os.environ.get("JPY_SESSION_NAME", "")
    here = Path.cwd()
    candidates = [Path(session), here / Path(session).name] if session.endswith(".ipynb") else []
    return next((p for p in [*candidates, here / f"{here.name}.ipynb"] if p.is_file()), None)


def _problem(name: str) -> str:
    """What the grader's rule says of ``name`` in the learner's notebook ("" when nothing), or why
    it could not be checked here (a line starting "not checked")."""
    path = notebook_path()
    if path is None:
        return "not checked here: the notebook file was not found"
    import nbformat

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = nbformat.read(path, as_version=4)
    released = nb.metadata.get("finite", {}).get("released_code")
    if not isinstance(released, list):
        return "not checked here: this notebook does not list its released cells"
    for cell in nb.cells:
        if cell.get("id") in _ran:
            cell.source = _ran[cell.id]
    answers = {c.metadata["nbgrader"].get("grade_id"): c.metadata.get("finite", {}).get("allow")
               for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")}
    allowed = {f"test_{a}": (a, [str(e) for e in allow]) for a, allow in answers.items() if isinstance(allow, list)}
    return exercise_problems(nb, ReleasedDigests(released), allowed, [f"test_{name}"]).get(f"test_{name}", "")


def rule_breach(name: str) -> str:
    """The grader's message when the code that defines ``name`` breaks its exercise's method rule
    (the "What you may call" list), else "" (also while being graded: the grader's check counts)."""
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return ""
    try:
        problem = _problem(name)
    except Exception as error:  # advice only: a notebook it cannot read costs nothing here
        problem = f"not checked here ({type(error).__name__})"
    if problem.startswith("not checked"):
        print(f"{name}: the method rule was {problem}; the grader checks it when your notebook is graded")
        return ""
    return problem and f"{problem} (graded, {name} scores 0 for this)"


def check_rule(name: str) -> None:
    """A visible check: fail with the grader's message when ``name`` breaks its method rule."""
    breach = rule_breach(name)
    if breach:
        raise AssertionError(breach)
