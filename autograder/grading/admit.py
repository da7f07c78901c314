"""Admit a submission (trusted side): read it, note tampering, restore locked cells."""
import copy
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde
from traitlets.utils.importstring import import_item

from autograder.grading.gradebook import quiet_gradebook
from autograder.exchange.records import ExchangeNotes
from autograder.grading.autograded import KEY
from autograder.source_text import MARKER, json_strings, quoted
from autograder.statuses import Status

# The batch reports tampering itself (:func:`tampering`, in the notes); nbgrader's log lines about
# the same cells would only interrupt its progress bar.
QUIET = logging.getLogger("finite.sanitize")
QUIET.setLevel(logging.ERROR)
STUDENT_ID = re.compile(r"[A-Za-z0-9._@-]{1,100}")  # nbgrader's exchange splits names on "+"
# What a submission may hold before anything trusted parses it (its outputs are cleared before it
# runs, so they only cost reading): an honest notebook of this course is under 5 MB with its plots,
# holds under 200 cells and under 80 KB of text in all (the largest cell: about 4 KB). Judging a
# notebook at these caps (06, 200 KB of never-run statements added) took the grading process 5-8 s
# and 40-60 MB more than a control, measured on a loaded 2-core machine: bounded, where 3.8 MB took
# 81 s and 2.8 GB.
MAX_NOTEBOOK_MB = 32
MAX_CELLS = 2000
MAX_CELL_KB = 100
MAX_CODE_KB = 250
ASSIGNMENT = "finite_assignment"  # resources key: the batch hands its own Assignment to the sanitizers
EXCHANGE = "finite_exchange"  # resources key: and what collect said of the submission (records.ExchangeNotes)


def restore_roles(nb, assignment) -> list:
    """Give every cell the role the release gave it (its nbgrader metadata: answer, test, locked),
    whatever the submission's own metadata says; notes on what was restored. A cell is the
    release's by its cell id; failing that (a notebook rebuilt, its original deleted), the first
    cell claiming a grade id the release has and no cell holds. Any other cell claiming to be
    nbgrader's (a copy made in JupyterLab, a cell pasted from another notebook) is the learner's own
    code, graded as an added cell."""
    roles = assignment.cell_roles
    by_grade = {meta.get("grade_id"): cell_id for cell_id, meta in roles.items()}
    placed = {cell.get("id") for cell in nb.cells if cell.get("id") in roles}
    notes = []
    for index, cell in enumerate(nb.cells):
        mine = cell.get("metadata", {}).get("nbgrader")
        claimed = mine.get("grade_id") if isinstance(mine, dict) else None
        cell_id = cell.get("id") if cell.get("id") in roles else None
        if cell_id is None and by_grade.get(claimed) not in (None, *placed):
            cell_id = by_grade[claimed]
            placed.add(cell_id)
            notes.append(f"cell {index + 1} was graded as {claimed}, whose released cell is gone")
        if cell_id is not None:
            if mine != roles[cell_id]:
                notes.append(f"the nbgrader metadata of {roles[cell_id].get('grade_id')} (cell {index + 1}) was "
                             "changed; the release's restored")
                cell.setdefault("metadata", {})["nbgrader"] = copy.deepcopy(roles[cell_id])
        elif mine is not None:
            del cell.metadata["nbgrader"]
            notes.append(f"cell {index + 1} copies {claimed or 'an nbgrader cell'}: it is graded as your own code, "
                         "the original as the answer")
    return notes


def tampering(nb, assignment):
    """Notes on locked cells the learner changed, deleted or retyped (all restored before grading)."""
    notes, seen = [], set()
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        original = assignment.release.get(grade_id)
        if original is None:
            continue
        seen.add(grade_id)
        if cell.cell_type != original.cell_type:
            notes.append(f"locked cell {grade_id} was changed from {original.cell_type} to {cell.cell_type}; restored")
        elif utils.compute_checksum(cell) != utils.compute_checksum(original):
            notes.append(f"locked cell {grade_id} was modified (checksum changed); restored")
    for grade_id in assignment.release:
        if grade_id not in seen:
            notes.append(f"locked cell {grade_id} was deleted; restored")
    return notes


def restore_unchanged(nb, assignment, info: dict) -> None:
    """Give each locked cell the learner left as released its gradebook source (hidden tests
    included) now, as nbgrader's ``OverwriteCells`` would next: it then warns only about cells
    the learner really changed. ``info``: nbgrader's resources (notebook, assignment, db_url)."""
    unchanged = [cell for cell in nb.cells if _unchanged(cell, assignment)]
    if not unchanged:
        return
    with quiet_gradebook(info["db_url"]) as gradebook:
        for cell in unchanged:
            try:
                stored = gradebook.find_source_cell(cell.metadata.nbgrader["grade_id"], info["notebook"],
                                                    info["assignment"])
            except MissingEntry:
                continue
            cell.source = stored.source


def _unchanged(cell, assignment) -> bool:
    original = assignment.release.get(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id"))
    return original is not None and cell.cell_type == original.cell_type and \
        utils.compute_checksum(cell) == utils.compute_checksum(original)


def sanitize(course, nb, assignment, student: str, exchange: ExchangeNotes = ExchangeNotes()):
    """The course's configured ``Autograde.sanitize_preprocessors`` (``nbgrader_config.py``), as
    ``nbgrader autograde`` runs them: what collect said (``exchange``) and tampering noted, locked
    cells restored from the gradebook ``assignment.db_url``. Returns (notebook, notes)."""
    config = course.config.nbgrader
    resources = {"nbgrader": {"notebook": assignment.assignment_id, "assignment": assignment.assignment_id,
                              "student": student, "db_url": assignment.db_url}, ASSIGNMENT: assignment,
                 EXCHANGE: exchange}
    for preprocessor in Autograde(config=config).sanitize_preprocessors:
        preprocessor = import_item(preprocessor) if isinstance(preprocessor, str) else preprocessor
        nb, resources = preprocessor(config=config, log=QUIET).preprocess(nb, resources)
    return nb, nb.metadata.get(KEY, {}).get("notes", [])


@dataclass(frozen=True)
class Admitted:
    """What admitting one submission gave: a restored notebook to run (``status`` GRADED), or the
    status it ends with here (missing, unreadable, invalid id, refused: no notebook; review: the
    notebook as submitted, never run)."""

    status: Status
    notes: list
    nb: object = None  # NotebookNode, restored and ready to run


def over_size(nb) -> str:
    """Why a parsed notebook is more than grading reads (cells, code per cell, code in all), in one
    line; "" when it is not."""
    cells = nb.get("cells") if isinstance(nb.get("cells"), list) else []
    if len(cells) > MAX_CELLS:
        return f"the notebook holds {len(cells)} cells, more than the {MAX_CELLS} grading reads"
    total = 0
    for index, cell in enumerate(cells):
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        size = len(("".join(source) if isinstance(source, list) else str(source)).encode())
        if size > MAX_CELL_KB * 1000:
            return f"cell {index + 1} holds more than {MAX_CELL_KB} KB of text, more than grading reads"
        total += size
    if total > MAX_CODE_KB * 1000:
        return f"the notebook's cells hold more than {MAX_CODE_KB} KB of text in all, more than grading reads"
    return ""


def holds_source_text(nb, assignment) -> str:
    """Why a submission holds text only the instructor's source has (a solution or hidden-test
    marker, or lines of this assignment's hidden tests), in one line; "" when it does not. Such a
    notebook came from the instructor's files, not from the release: a person grades it."""
    text = "\n".join(json_strings(nb))
    if MARKER.search(text):
        return "holds source text: a solution or hidden-test marker, which only the instructor's notebook has"
    hits = quoted(text, assignment.hidden_lines)
    if hits:
        return f"holds source text: {len(hits)} lines of the hidden tests, which only the instructor's notebook has"
    return ""


def admit(course, submission, assignment) -> Admitted:
    """Read, check and restore one submission (a ``batch.Submission``) before it runs (trusted
    side); where the notebook was found, or why it was refused, and what collect said, start its
    notes."""
    first = [submission.note] if submission.note else []
    said = first + list(submission.exchange.notes)
    if submission.refused:
        return Admitted(Status.REFUSED, said)
    if not STUDENT_ID.fullmatch(submission.student):
        return Admitted(Status.INVALID_ID, [f"the folder name {submission.student!r} is not a valid nbgrader student "
                                            "id (letters, digits and . _ - @ only); rename it and grade again"])
    if submission.path is None or not Path(submission.path).is_file():
        return Admitted(Status.MISSING, [f"no notebook {assignment.assignment_id}/{assignment.assignment_id}.ipynb "
                                         "was found"])
    if Path(submission.path).stat().st_size > MAX_NOTEBOOK_MB * 1e6:
        return Admitted(Status.REFUSED, said + [f"the notebook is larger than {MAX_NOTEBOOK_MB} MB, more than "
                                                "grading reads"])
    try:
        invalid = {}  # nbformat.reads checks the schema and only logs what it finds: raised here
        nb = nbformat.reads(Path(submission.path).read_text(encoding="utf-8"), as_version=4,
                            capture_validation_error=invalid)
        if invalid:
            raise invalid["ValidationError"]
        too_big = over_size(nb)
        if too_big:
            return Admitted(Status.REFUSED, said + [too_big])
        source_text = holds_source_text(nb, assignment)
        if source_text:
            return Admitted(Status.REVIEW, said + [source_text], nb)
        nb, notes = sanitize(course, nb, assignment, submission.student, submission.exchange)
    except Exception as error:
        why = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        return Admitted(Status.UNREADABLE, said + [f"not a readable notebook: {why}"])
    return Admitted(Status.GRADED, first + notes, nb)
