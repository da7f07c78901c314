"""Per-student feedback as self-contained HTML (a Jinja2 template), built from trusted data only.

A page holds the judge's verdict per test cell (computed outside the kernel), the student's own
answer cells, and, for the answer cells that ran before the first test cell, the text they
printed then (the sandbox's snapshot, ``SandboxRun.shown``): nothing produced after a hidden test
entered the kernel reaches a page, in any form (no images, HTML or display updates either), since
code a student wrote could encode what it saw there in a way no filter can guess. That text still
passes the assignment's :class:`~autograder.grading.disclosure.SecretFilter` and a size bound.
"""
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from autograder.grading.disclosure import hide_grader_paths
from fplab.rules import defining_source
from autograder.grading.autograded import NOT_RUN
from autograder.statuses import STATUS_TEXT

TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                        autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
MAX_OUTPUTS = 20  # outputs shown per answer cell


def render(result, final, nb, assignment, shown: dict) -> str:
    """The feedback page for one student. ``final``: the grades nbgrader holds (``gradebook.Final``:
    a manual score overrides the judged one; the instructor's comments); ``nb``: the executed notebook
    (for the answer cells' source), or None (and for a notebook that never ran: a refused or review
    status); ``shown``: {cell index (as str or int): [{"kind", "text"}]} from the sandbox."""
    if result.status in NOT_RUN:
        nb = None
    rows = []
    for name, points in assignment.tests.items():
        got = final.scores.get(name, 0.0)
        rows.append({"name": name, "points": points, "got": got,
                     "verdict": "passed" if got >= points else "failed",
                     "why": result.errors.get(name, "") if name not in final.manual or got < points else "",
                     "by_hand": name in final.manual, "comment": final.comments.get(name, "")})
    shown = {int(k): v for k, v in (shown or {}).items()}
    answers, first_test = [], None
    for index, cell in enumerate(nb.cells if nb is not None else []):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code" and first_test is None:
            first_test = index
        if cell.cell_type == "code" and meta.get("solution"):
            outputs = [{"kind": o.get("kind") if o.get("kind") in ("out", "err") else "out",
                        "text": assignment.secrets.clean(hide_grader_paths(str(o.get("text", ""))))}
                       for o in shown.get(index, [])[:MAX_OUTPUTS]]
            answers.append({"grade_id": meta.get("grade_id", ""), "outputs": outputs,
                            "source": defining_source(nb, assignment.released_code, meta.get("grade_id", "")),
                            "after_tests": first_test is not None and index > first_test})
    return TEMPLATES.get_template("feedback.html.j2").render(
        title=f"{result.assignment}: feedback for {result.student}", result=result, final=final,
        status_text=STATUS_TEXT[result.status], rows=rows, answers=answers)
