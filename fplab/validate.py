"""Validate in the course's words: what the notebook's own summary says, failing exercises first.

The learner's lab (:mod:`fplab.lab`) serves nbgrader's Validate endpoint with :class:`ValidateHandler`
instead of nbgrader's own. nbgrader's Validator runs the notebook as always (a fresh kernel, top to
bottom, its check of changed locked cells, which it still reports its own way); only the answer
differs: instead of "Success! Your notebook passes all the tests." or every failing cell's code and
traceback, which exercises pass their visible checks, which fail and the first line of why, and
that hidden tests check more.

nbgrader's lab extension draws each ``failed`` entry of the answer as "The following cell failed:",
the cell's code, then the error as HTML. The answer holds one entry whose HTML is the standing,
with a style that hides that frame, so the dialog shows the standing alone.
"""
import html
import traceback
from pathlib import Path

from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler
from nbgrader.validator import Validator
from tornado import web

from fplab.progress import FAILED, NOT_ATTEMPTED, PASSED, passing, table
from fplab.standing import exercises

ORDER = (FAILED, NOT_ATTEMPTED, PASSED)  # failing exercises first
FRAME = ("<style>#validation-message:has(.fplab-validate) > :not(:has(.fplab-validate)) { display: none; }"
         " .fplab-validate { white-space: pre-wrap; }</style>")


def validate_text(rows) -> str:
    """What Validate says about a notebook whose test cells it ran and judged into ``rows``."""
    if not rows:
        return "Validate ran this notebook: it has no graded exercises."
    rows = sorted(rows, key=lambda row: ORDER.index(row.state))
    lines = ["Validate ran this notebook from the top in a fresh kernel, as grading does.", "", table(rows), "",
             f"{passing(rows)}.", "That is not a score: when your notebook is graded, hidden tests check more cases."]
    if rows[0].state == FAILED:
        lines.append("Run a failing exercise's test cell to read its whole message.")
    return "\n".join(lines)


class CourseValidator(Validator):
    """nbgrader's Validator, answering with the standing where no locked cell was changed."""

    def _preprocess(self, nb):
        self.ran = super()._preprocess(nb)
        return self.ran

    def validate(self, filename):
        results = super().validate(filename)
        if "type_changed" in results or "changed" in results:
            return results
        text = validate_text(exercises(self.ran))
        return {"failed": [{"source": "", "raw_error": text,
                            "error": f'{FRAME}<span class="fplab-validate">{html.escape(text)}</span>'}]}


class ValidateHandler(ValidateAssignmentHandler):
    """nbgrader's ``/assignments/validate``, validating with :class:`CourseValidator`."""

    def validate_notebook(self, path):
        root = Path(self.root_dir).resolve()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise web.HTTPError(403, "Access denied: path outside allowed directory")
        try:
            return {"success": True, "value": CourseValidator(config=self.load_config()).validate(str(target))}
        except Exception:  # nbgrader's answer: the dialog shows the traceback
            self.log.error(traceback.format_exc())
            return {"success": False, "value": traceback.format_exc()}
