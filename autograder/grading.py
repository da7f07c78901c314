"""Grade one submission: restore locked cells, execute in the sandbox, score outside it."""
import json
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader import utils
from nbgrader.preprocessors import (
    CheckCellMetadata, ClearOutput, DeduplicateIds, Execute, LimitOutput, OverwriteCells,
    OverwriteKernelspec,
)

from autograder.caps import MEMORY_ERRORS, Enclosure, Usage, limit_outcome, notebook_errors  # noqa: F401
from autograder.sandbox import QuietKernelManager, kernel_manager_class


@dataclass
class Result:
    """What one student got; written as JSON once grading of that student is complete."""

    student: str
    assignment: str
    status: str
    scores: dict  # test grade_id -> points
    max_score: float
    submission_sha256: str = ""
    notes: list = field(default_factory=list)  # tampering and limits, shown in feedback
    errors: dict = field(default_factory=dict)  # test grade_id -> last line of its error

    @property
    def score(self):
        return sum(self.scores.values())

    def to_json(self):
        return json.dumps(asdict(self), indent=1, sort_keys=True)


@dataclass
class Assignment:
    """Everything trusted the grader knows about the assignment, prepared once per batch."""

    assignment_id: str
    db_url: str  # nbgrader gradebook made by generate_assignment (holds hidden tests)
    release: dict  # {grade_id: release cell} for locked cells, to detect tampering
    tests: dict  # {test grade_id: points}
    secrets: list  # substantial lines of hidden tests and solutions, scrubbed from feedback

    @property
    def max_score(self):
        return float(sum(self.tests.values()))


class RecordingExecute(Execute):
    """nbgrader's executor, remembering which cells really ran."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.ran = set()

    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        self.ran.add(kwargs["cell_index"])


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
    """nbgrader's own autograde clean-up: clear outputs, restore locked cells, check metadata."""
    resources = {"nbgrader": {"notebook": assignment.assignment_id,
                              "assignment": assignment.assignment_id, "db_url": assignment.db_url}}
    for preprocessor in (ClearOutput(), DeduplicateIds(), OverwriteKernelspec(),
                         OverwriteCells(add_missing_cells=True), CheckCellMetadata()):
        nb, resources = preprocessor.preprocess(nb, resources)
    return nb


def execute(nb, scratch, limits, sandboxed=True):
    """Run ``nb`` in a sandboxed kernel. Returns (indices of cells that ran, outcome, usage).

    ``usage`` is what the caps recorded (:class:`autograder.caps.Usage`), for ``limit_outcome``.
    ``sandboxed=False`` exists only so the benchmark can measure what the sandbox costs.
    """
    if not sandboxed:
        return _execute(nb, scratch, limits, QuietKernelManager) + (Usage(),)
    with Enclosure(limits, scratch) as enclosure:
        ran, outcome = _execute(nb, scratch, limits, kernel_manager_class(scratch, limits, enclosure))
    return ran, outcome, enclosure.usage


def _execute(nb, scratch, limits, manager):
    executor = RecordingExecute(
        timeout=limits.cell_timeout, interrupt_on_timeout=True, allow_errors=True,
        raise_on_iopub_timeout=False, kernel_manager_class=manager,
        extra_arguments=["--HistoryManager.hist_file=:memory:"],
    )
    expired = threading.Event()

    def kill():
        expired.set()
        if executor.km is not None and executor.km.has_kernel:
            executor.km.provisioner.process.kill()  # bwrap; --die-with-parent takes the rest

    watchdog = threading.Timer(limits.notebook_timeout, kill)
    watchdog.start()
    try:
        executor.preprocess(nb, {"metadata": {"path": str(scratch)}})
        outcome = "ok"
    except (DeadKernelError, CellTimeoutError) as error:
        killed = expired.is_set() or isinstance(error, CellTimeoutError)
        outcome = "timeout" if killed else "kernel_died"
    except Exception:
        if not expired.is_set():  # a kill mid-cell surfaces in several ways; anything else is ours
            raise
        outcome = "timeout"
    finally:
        watchdog.cancel()
    LimitOutput().preprocess(nb, {})
    return executor.ran, outcome


def last_error_line(cell):
    """The line a learner needs: the error's last line, or the fact the cell wrote to stderr."""
    for output in cell.outputs:
        if output.output_type == "error":
            text = f"{output.ename}: {output.evalue}".strip() if output.evalue else output.ename
            return text.splitlines()[-1][:300]
        if output.output_type == "stream" and output.name == "stderr":
            lines = output.text.strip().splitlines()
            return ("wrote to stderr: " + lines[-1])[:300] if lines else "wrote to stderr"
    return ""


def score(nb, ran, assignment):
    """{test grade_id: points} by nbgrader's rules; a test cell that never ran scores 0."""
    scores, errors = {name: 0.0 for name in assignment.tests}, {}
    for index, cell in enumerate(nb.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id not in assignment.tests:
            continue
        if index not in ran:
            errors[grade_id] = "did not run (the kernel stopped before this cell)"
            continue
        points, max_points = utils.determine_grade(cell)
        scores[grade_id] = min(max(float(points or 0.0), 0.0), float(max_points))
        if scores[grade_id] < max_points:
            errors[grade_id] = last_error_line(cell) or "no points"
    return scores, errors


def errors_named(nb, markers):
    """True when any cell's error output mentions one of ``markers``."""
    return any(
        any(marker in output.get("ename", "") + output.get("evalue", "") for marker in markers)
        for cell in nb.cells if cell.cell_type == "code" for output in cell.outputs
        if output.output_type == "error"
    )


def grade(student, path, assignment, limits, scratch_root, digest=""):
    """Grade one submission. Returns (Result, executed notebook or None)."""
    zero = {name: 0.0 for name in assignment.tests}
    base = dict(student=student, assignment=assignment.assignment_id, max_score=assignment.max_score,
                submission_sha256=digest)
    if path is None or not Path(path).is_file():
        return Result(status="missing", scores=zero, notes=["no notebook was submitted"], **base), None
    try:
        nb = nbformat.reads(Path(path).read_text(encoding="utf-8"), as_version=4)
        nbformat.validate(nb)
        notes = tampering(nb, assignment)
        nb = sanitise(nb, assignment)
    except Exception as error:
        why = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        return Result(status="unreadable", scores=zero, notes=[f"not a readable notebook: {why}"], **base), None
    with tempfile.TemporaryDirectory(prefix="fg-", dir=scratch_root) as scratch:
        ran, outcome, usage = execute(nb, Path(scratch), limits)
    scores, errors = score(nb, ran, assignment)
    status = {"ok": "graded"}.get(outcome, outcome)
    if status == "graded" and errors_named(nb, ("CellTimeoutError",)):
        status = "timeout"
    limit = limit_outcome(usage, limits, notebook_errors(nb))
    if limit:
        status, note = limit
        notes.append(note)
    notes += {
        "timeout": [f"stopped: a cell ran over {limits.cell_timeout} s or the notebook over {limits.notebook_timeout} s"],
        "kernel_died": ["the kernel died; test cells after that point score 0"],
    }.get(status, [])
    return Result(status=status, scores=scores, notes=notes, errors=errors, **base), nb
