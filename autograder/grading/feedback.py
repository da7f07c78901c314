"""Per-student feedback as self-contained HTML (a Jinja2 template), built from trusted data only.

A page holds the judge's verdict per test cell (computed outside the kernel), the student's own
answer cells and their outputs. Text that learner code printed passes the assignment's
:class:`~autograder.disclosure.SecretFilter` and a size bound; test-cell outputs are never shown.
"""
import base64
import binascii
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from autograder.statuses import STATUS_TEXT

TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                        autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
MAX_OUTPUTS = 20  # outputs shown per answer cell


def shown_output(output, secrets):
    """{"kind", "text"} for one answer-cell output, or None when nothing of it may be shown."""
    if output.output_type == "stream":
        return {"kind": "out", "text": secrets.clean(output.text)}
    if output.output_type == "error":
        return {"kind": "err", "text": secrets.clean(f"{output.ename}: {output.evalue}")}
    data = output.get("data", {})
    if isinstance(data.get("image/png"), str):
        try:
            base64.b64decode(data["image/png"], validate=True)
        except (binascii.Error, ValueError):
            return None
        return {"kind": "image", "text": data["image/png"]}
    if isinstance(data.get("text/plain"), str):
        return {"kind": "out", "text": secrets.clean(data["text/plain"])}
    return None


def render(result, nb, assignment) -> str:
    """The feedback page for one student (``nb`` is the executed notebook, or None)."""
    rows = [{"name": name, "points": points, "got": result.scores.get(name, 0.0),
             "verdict": "passed" if result.scores.get(name, 0.0) >= points else "failed",
             "why": result.errors.get(name, "")}
            for name, points in assignment.tests.items()]
    answers = []
    for cell in nb.cells if nb is not None else []:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            outputs = [shown_output(o, assignment.secrets) for o in cell.outputs[:MAX_OUTPUTS]]
            answers.append({"grade_id": meta.get("grade_id", ""), "source": cell.source,
                            "outputs": [o for o in outputs if o]})
    return TEMPLATES.get_template("feedback.html.j2").render(
        title=f"{result.assignment} — feedback for {result.student}", result=result,
        status_text=STATUS_TEXT[result.status], rows=rows, answers=answers)
