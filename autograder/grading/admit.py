"""Admit a submission (trusted side): read it, note tampering, restore locked cells."""
import logging
import re
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.converters import Autograde
from traitlets.config import Config

from autograder.grading.score import Result
from autograder.statuses import Status

# nbgrader logs "Checksum for grade cell ... has changed!" for every restored test cell, changed or
# not (hidden tests differ from the release); :func:`tampering` reports real changes instead.
QUIET = logging.getLogger("finite.sanitise")
QUIET.setLevel(logging.ERROR)
STUDENT_ID = re.compile(r"[A-Za-z0-9._@-]{1,100}")  # nbgrader's exchange splits names on "+"


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


def sanitise(nb, assignment):
    """nbgrader's own autograde clean-up (its ``sanitize_preprocessors``: clear outputs, restore
    locked cells, deleted ones too, check metadata)."""
    resources = {"nbgrader": {"notebook": assignment.assignment_id,
                              "assignment": assignment.assignment_id, "db_url": assignment.db_url}}
    config = Config({"OverwriteCells": {"add_missing_cells": True}})
    for preprocessor in Autograde(config=config).sanitize_preprocessors:
        nb, resources = preprocessor(config=config, log=QUIET).preprocess(nb, resources)
    return nb


def admit(student, path, assignment, digest="", note=""):
    """Read, check and restore one submission before it runs (trusted side); ``note`` (where the
    notebook was found) starts its notes.

    Returns (Result, None) when it ends here (missing, unreadable), else (None, (notebook, notes)).
    """
    first = [note] if note else []
    zero = {name: 0.0 for name in assignment.tests}
    base = dict(student=student, assignment=assignment.assignment_id, max_score=assignment.max_score,
                submission_sha256=digest)
    if not STUDENT_ID.fullmatch(student):
        return Result(status=Status.INVALID_ID.value, scores=zero,
                      notes=[f"the folder name {student!r} is not a valid nbgrader student id "
                             "(letters, digits and . _ - @ only); rename it and grade again"], **base), None
    if path is None or not Path(path).is_file():
        return Result(status=Status.MISSING.value, scores=zero,
                      notes=[f"no notebook {assignment.assignment_id}/{assignment.assignment_id}.ipynb was found"],
                      **base), None
    try:
        nb = nbformat.reads(Path(path).read_text(encoding="utf-8"), as_version=4)
        nbformat.validate(nb)
        notes = first + tampering(nb, assignment)
        nb = sanitise(nb, assignment)
    except Exception as error:
        why = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        return Result(status=Status.UNREADABLE.value, scores=zero, notes=first + [f"not a readable notebook: {why}"],
                      **base), None
    return None, (nb, notes)


