"""The reference: the instructor's solutions run once in the same sandbox as students, checked,
and cached by the assignment's fingerprint in the course's git-ignored cache
(``.finite/reference/``), never released and never bound into a sandbox. Its observations are the
only expected values there are."""
import json
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path

from autograder.course import CourseError, read_notebook
from autograder.grading.files import write_atomic
from autograder.grading.observations import MalformedObservation, Observation, read_observations
from autograder.grading.verdict import kernel_passed
from autograder.sandbox.limits import Limits
from autograder.sandbox.report import handoff
from autograder.sandbox.run import SandboxRun, run_in_sandbox


class SolutionFailed(CourseError):
    """A test cell fails on the instructor's solutions (the reference run): which, and why, as data."""

    def __init__(self, assignment_id: str, test: str, why: str):
        super().__init__(f"{assignment_id}: {test} on the solutions (the reference run) {why}")
        self.assignment_id, self.test, self.why = assignment_id, test, why


def solved_notebook(course, assignment_id: str):
    """The notebook the reference run executes: the header, then the source notebook as the
    instructor wrote it (solutions and hidden tests), outputs cleared."""
    nb = course.source_notebook(assignment_id)
    nb.cells = read_notebook(course.header_path).cells + nb.cells
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def reference_limits(limits: Limits) -> Limits:
    """The reference run's limits: the students' caps, but never shorter time limits than the
    defaults (the solutions are trusted; a loaded machine must not fail them)."""
    default = Limits()
    return replace(limits, cell_timeout=max(limits.cell_timeout, default.cell_timeout),
                   notebook_timeout=max(limits.notebook_timeout, default.notebook_timeout))


def reference_run(course, assignment_id: str, limits: Limits) -> SandboxRun:
    """Run the solved notebook in the sandbox (trusted code, on this machine)."""
    return run_in_sandbox(handoff(solved_notebook(course, assignment_id)), reference_limits(limits))


def reference_path(course, assignment_id: str, stamp: str) -> Path:
    return course.cache / "reference" / f"{assignment_id}-{stamp[:16]}.json"


def stored_reference(path: Path) -> dict | None:
    """The cached reference observations at ``path``, or None."""
    try:
        data = json.loads(path.read_text())
        return {k: [Observation(**o) for o in v] for k, v in data.items()}
    except (OSError, ValueError, TypeError):
        return None


def reference_observations(assignment, run: SandboxRun) -> dict:
    """{test grade_id: [Observation]} from the solved notebook's run. CourseError naming the cell
    when a test fails on the solutions or observes nothing (:class:`SolutionFailed`)."""
    nb = run.notebook()
    found = {}
    for index, cell in enumerate(nb.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id not in assignment.tests:
            continue
        failed = partial(SolutionFailed, assignment.assignment_id, grade_id)
        if index not in run.ran:
            raise failed(f"did not run ({run.outcome})")
        if not kernel_passed(cell):
            error = next((f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"),
                         "it wrote to stderr")
            raise failed(f"failed: {error.strip().splitlines()[-1][:300]}")
        try:
            found[grade_id] = read_observations(cell)
        except MalformedObservation as error:
            raise failed(f"made a malformed observation: {error}") from None
        if not found[grade_id]:
            raise failed("observes nothing: hidden tests must call fplab.observe")
    missing = [g for g in assignment.tests if g not in found]
    if missing:
        raise CourseError(f"{assignment.assignment_id}: {missing[0]} is not in the solved notebook")
    return found


def ensure_reference(course, assignment, limits, stamp: str, run: SandboxRun | None = None) -> None:
    """Fill ``assignment.reference`` from the course's cache, else from ``run`` (a run of
    :func:`solved_notebook`) or a run made now, which is then checked and cached. CourseError
    (naming the assignment and cell) when the solutions fail their own tests."""
    path = reference_path(course, assignment.assignment_id, stamp)
    stored = stored_reference(path)
    if stored is not None:
        assignment.reference = stored
        return
    if run is None:
        run = reference_run(course, assignment.assignment_id, limits)
    assignment.reference = reference_observations(assignment, run)
    write_atomic(path, json.dumps({k: [asdict(o) for o in v] for k, v in assignment.reference.items()}))


@contextmanager
def reference_beside(course, assignment, limits, stamp, pool=None):
    """Fill ``assignment.reference``: from the course's cache, else from a run of the solutions
    that starts now, beside the students' runs: on ``pool`` (the local workers, so a batch never
    runs more sandboxes at once than it has workers), or, with no local pool, in a local process of
    its own (never on a Dask worker: it holds the solutions). The body submits the students; the
    run is checked and cached when it ends."""
    cached = stored_reference(reference_path(course, assignment.assignment_id, stamp))
    if cached is not None:
        assignment.reference = cached
        yield
        return
    with nullcontext(pool) if pool is not None else ProcessPoolExecutor(max_workers=1) as local:
        running = local.submit(reference_run, course, assignment.assignment_id, limits)
        try:
            yield
        except BaseException:
            running.cancel()
            raise
        ensure_reference(course, assignment, limits, stamp, run=running.result())
