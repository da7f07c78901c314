"""The verdict on an executed submission, outside the kernel (trusted side): each test cell's
score (its observations against the reference run's, what the kernel said, the method rules), how
the run ended, what a person should read; one :class:`Result`."""
import ast
import json
import re
from dataclasses import asdict, dataclass, field

from autograder.grading.observations import MalformedObservation, compare_observations, read_observations
from autograder.grading.signatures import failure_signatures, tolerance_uses
from autograder.sandbox.cells import cell_label
from autograder.sandbox.usage import limit_outcome, notebook_errors
from autograder.statuses import Status
from fplab.rules import dynamic_lookups, exercise_problems

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CELL_LINE = re.compile(r"Cell In\[\d+\], line (\d+)")


@dataclass(frozen=True)
class ReviewNote:
    """Something a person should read: code in ``label``'s cell (an answer's grade id, or "cell N"
    for a cell of the learner's own) at ``line``, or (``label`` "") what collect said of the whole
    submission."""

    label: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.label}, line {self.line}: {self.text}" if self.label else self.text

    @classmethod
    def about_submission(cls, lines) -> tuple:
        """Notes on the whole submission (what collect said), one per line."""
        return tuple(cls("", 0, line) for line in lines)


@dataclass(frozen=True)
class Context:
    """Who is graded, and what the result records besides the notebook: the submission's digest,
    the fingerprint it is graded with, nbgrader's timestamp, and what collect said to review."""

    student: str
    digest: str = ""
    stamp: str = ""
    submitted_at: str = ""
    review: tuple = ()  # ReviewNote, from outside the notebook


@dataclass
class Result:
    """What one student got; written as JSON once grading of that student is complete."""

    student: str
    assignment: str
    status: Status
    scores: dict  # test grade_id -> points
    max_score: float
    submission_sha256: str = ""
    fingerprint: str = ""  # of the assignment, limits and versions it was graded with
    submitted_at: str = ""  # nbgrader's timestamp.txt, when the submission came through its exchange
    notes: list = field(default_factory=list)  # tampering and limits, shown in feedback
    errors: dict = field(default_factory=dict)  # test grade_id -> why it lost points (safe to show)
    caught_by_visible: list = field(default_factory=list)  # tests failed in their visible part (for check)
    observed: dict = field(default_factory=dict)  # test grade_id -> share the observations alone earn (for check)
    review: list = field(default_factory=list)  # ReviewNote: code the instructor should read (dynamic lookups, patching)
    signatures: dict = field(default_factory=dict)  # test grade_id -> [[observation, signature]] (items.py; never shown)
    tolerance_use: dict = field(default_factory=dict)  # test grade_id -> share of its tolerance used (check; never shown)

    def __post_init__(self):  # as read back from JSON: the status and notes typed again
        self.status = Status(self.status)
        self.review = [note if isinstance(note, ReviewNote) else ReviewNote(**note) if isinstance(note, dict)
                       else ReviewNote("", 0, str(note)) for note in self.review]

    @property
    def score(self) -> float:
        return sum(self.scores.values())

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)


def kernel_passed(cell) -> bool:
    """The kernel's own verdict on a test cell, nbgrader's rule: no error and no stderr.

    It can only lower a score: the kernel runs the student's code, so it may lie about success.
    (nbgrader's ``determine_grade`` would also read a number the cell's last expression printed as
    partial credit: a value the learner's function returned, so it is not used.)
    """
    return not any(o.output_type == "error" or (o.output_type == "stream" and o.get("name") == "stderr")
                   for o in cell.get("outputs", []))


def error_line(cell, templates, secrets, public_names=frozenset(), visible=None) -> str:
    """What a learner may read about a failed test cell's error.

    Before any hidden test entered the kernel (``visible`` None): its class name when that is a
    builtin or a name the released notebook uses (any other name is the learner's code's choice
    and may encode hidden tests), and its message when that is one of the cell's visible assertion
    messages. After (``visible``: the cell's released source): nothing the kernel formatted, only
    which visible check failed, in the source notebook's own words (:func:`visible_check`)."""
    for output in cell.outputs:
        if output.output_type == "error":
            if visible is not None:
                return visible_check(output, cell.source, templates, visible)
            name = output.ename if output.ename in public_names else "an error"
            message = (output.evalue or "").strip()
            if message and any(t.fullmatch(message) for t in templates) and not secrets.leaks(message):
                return f"{name}: {message[:300]}"
            return name
        if output.output_type == "stream" and output.name == "stderr":
            return "wrote to stderr (a warning or a print to sys.stderr fails a test cell)"
    return ""


FIELD = ".{0,120}?"  # a formatted field in disclosure.assertion_templates' patterns


def template_text(template) -> str:
    """A visible assert message as the source writes it, each formatted field shown as "…"."""
    return "…".join(re.sub(r"\\(.)", r"\1", part, flags=re.S) for part in template.pattern.split(FIELD))


def visible_check(error, source, templates, visible) -> str:
    """Which visible check an error failed, told from source text alone: the assert message it
    fits (its template, without the values), else the visible assert line the traceback names."""
    message = (error.get("evalue") or "").strip()
    for template in templates:
        if message and template.fullmatch(message):
            return f"a visible check failed: {template_text(template)}"
    match = CELL_LINE.search(ANSI.sub("", "\n".join(error.get("traceback") or [])))
    lines = source.splitlines()
    if match and 1 <= int(match[1]) <= len(lines):
        line = lines[int(match[1]) - 1].strip()
        if line.startswith("assert") and line in {v.strip() for v in visible.splitlines()}:
            return f"a visible check failed: line {match[1]}: {line}"
    return "failed"


@dataclass(frozen=True)
class CellScore:
    """One test cell's verdict: the share of its points earned, the share its observations alone
    earn, and why it lost points ("" when it did not)."""

    fraction: float
    observed: float
    why: str = ""


def score_cell(cell, reference, templates, secrets, public_names=frozenset(), visible=None) -> CellScore:
    """The cell's :class:`CellScore`. ``visible``: see :func:`error_line`."""
    try:
        comparison = compare_observations(reference, read_observations(cell, len(reference)))
    except MalformedObservation as error:  # in observations.py's words: no name, no count of the kernel's
        return CellScore(0.0, 0.0, f"malformed observation data: {error}")
    problems = [secrets.clean(p, 300) for p in comparison.problems[:5]]
    if not kernel_passed(cell):
        why = error_line(cell, templates, secrets, public_names, visible) or "failed"
        return CellScore(0.0, comparison.fraction, "; ".join([why, *problems]))
    return CellScore(comparison.fraction, comparison.fraction, "; ".join(problems))


def failed_in_visible_part(cell, visible_lines) -> bool:
    """True when the kernel reports the cell's error at one of its first ``visible_lines`` lines
    (self-check statistics only: the kernel's report is not trusted for scores)."""
    for output in cell.outputs:
        if output.output_type == "error":
            match = CELL_LINE.search(ANSI.sub("", "\n".join(output.traceback)))
            return bool(match) and int(match[1]) <= visible_lines
    return False


def quiz_answers(nb, answer) -> str:
    """"your answers: q1 = b, q2 = …" read from the learner's answer cell ``answer`` as written
    (never run, never the key), or "" when it holds none."""
    cells = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade_id") == answer]
    try:
        tree = ast.parse(cells[0].source) if cells else None
    except SyntaxError:
        return ""
    found = []
    for node in tree.body if tree else []:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and re.fullmatch(r"q\d+", node.targets[0].id):
            value = node.value.value if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) \
                else ast.get_source_segment(cells[0].source, node.value) or ""
            found.append(f"{node.targets[0].id} = {value[:40]}")
    return "your answers: " + ", ".join(found[:12]) if found else ""


def stop_reason(nb, run, limits) -> str:
    """Why the kernel stopped, for the row of the cell it stopped in."""
    limit = limit_outcome(run.usage, limits, notebook_errors(nb))
    if limit:
        return f"stopped in this cell: your notebook {limit[1]}"
    if run.outcome == "timeout":
        return f"stopped in this cell: the notebook ran over {limits.notebook_timeout} s in total"
    return "the kernel died in this cell (a crash, or a call that ends the process)"


@dataclass
class Scores:
    """Every test cell's points, and what check reads beside them."""

    points: dict  # test grade_id -> points
    errors: dict = field(default_factory=dict)  # test grade_id -> why it lost points
    caught_by_visible: list = field(default_factory=list)  # tests failed in their visible part
    observed: dict = field(default_factory=dict)  # test grade_id -> share its observations alone earn


def score_tests(nb, run, assignment, limits) -> Scores:
    """Every test cell judged outside the kernel; a test cell that never ran scores 0. ``run`` (the
    SandboxRun) names the cell the kernel stopped in and the cells the cell time limit interrupted.
    From the first test cell with hidden tests on, no error text the kernel formatted is used (see
    :func:`error_line`)."""
    scores = Scores({name: 0.0 for name in assignment.tests})
    stopped = run.stopped_in if run.stopped_in in range(len(nb.cells)) else -1
    hidden_in = False
    for index, cell in enumerate(nb.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id not in assignment.tests:
            continue
        released = assignment.release.get(grade_id)
        hidden_in = hidden_in or released is None or cell.source != released.source
        if index == stopped:
            scores.errors[grade_id] = stop_reason(nb, run, limits)
            continue
        if index not in run.ran:
            where = f" in {cell_label(nb, stopped)}" if 0 <= stopped < index else ""
            scores.errors[grade_id] = f"did not run (the kernel stopped{where} before this cell)"
            continue
        visible = (released.source if released else "") if hidden_in else None
        cell_score = score_cell(cell, assignment.reference.get(grade_id, []), assignment.templates.get(grade_id, []),
                                assignment.secrets, assignment.public_names, visible)
        fraction, why = cell_score.fraction, cell_score.why
        scores.observed[grade_id] = cell_score.observed
        if index in run.timed_out:
            fraction, why = 0.0, f"timed out after {limits.cell_timeout} s in this cell"
        elif fraction < 1.0 and grade_id.removeprefix("test_") == "quiz":
            why = "; ".join(filter(None, [why, quiz_answers(nb, assignment.rules.get(grade_id, ("quiz",))[0])]))
        scores.points[grade_id] = round(fraction * float(assignment.tests[grade_id]), 6)
        if fraction < 1.0:
            scores.errors[grade_id] = why or "no points"
        if failed_in_visible_part(cell, len(assignment.release[grade_id].source.splitlines())):
            scores.caught_by_visible.append(grade_id)
    return scores


def outcome_notes(nb, run, limits) -> tuple:
    """(Status, notes) for how the run ended: a cap the submission hit first (the cgroup's and
    the sandbox's records, ``run.usage``), then the cell or notebook that ran over its time, then a
    kernel that died; each note names the cell."""
    stopped = run.stopped_in if run.stopped_in in range(len(nb.cells)) else -1
    where = f" in {cell_label(nb, stopped)}" if stopped >= 0 else ""
    limit = limit_outcome(run.usage, limits, notebook_errors(nb))
    if limit:
        return limit[0], [f"{limit[1]}; stopped{where}" if where else limit[1]]
    interrupted = [cell_label(nb, i) for i in run.timed_out if i in range(len(nb.cells))]
    if run.outcome == "ok" and interrupted:
        return Status.TIMEOUT, [f"{label} timed out after {limits.cell_timeout} s and was interrupted; "
                                      "the cells after it still ran" for label in interrupted]
    if run.outcome == "timeout":
        return Status.TIMEOUT, [f"the notebook ran over {limits.notebook_timeout} s in total (or a cell "
                                      f"could not be interrupted) and was stopped{where}; test cells that had "
                                      "not run score 0"]
    if run.outcome == "kernel_died":
        return Status.KERNEL_DIED, [f"the kernel died{where}; test cells after that point score 0"]
    return Status.GRADED, []


def method_problems(nb, assignment) -> dict:
    """{test grade_id: why it scores 0} by the assignment's method rules (:func:`fplab.rules.exercise_problems`,
    the same check the learner's visible tests run), read from the learner's source outside the kernel."""
    return exercise_problems(nb, assignment.released_code, assignment.rules, assignment.tests)


def review_notes(nb, assignment) -> list:
    """[ReviewNote]: what the instructor should read: dynamic lookups or patching in any cell the
    learner wrote or changed (answer cells, and code cells that differ from the release)."""
    notes = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("locked") or (
                not meta.get("solution") and cell.source in assignment.released_code):
            continue
        label = meta.get("grade_id") or f"cell {index + 1}"
        notes += [ReviewNote(label, line, text) for line, text in dynamic_lookups(cell.source)]
    return notes[:20]


def conclude(run, assignment, limits, context: Context, notes: list) -> tuple:
    """Judge an executed notebook (trusted side). ``run``: the :class:`SandboxRun`; ``notes``: what
    admitting it said. Returns (Result, executed notebook)."""
    nb = run.notebook()
    scores = score_tests(nb, run, assignment, limits)
    for test, why in method_problems(nb, assignment).items():
        scores.points[test], scores.observed[test], scores.errors[test] = 0.0, 0.0, why
    status, more = outcome_notes(nb, run, limits)
    return Result(student=context.student, assignment=assignment.assignment_id, status=status, scores=scores.points,
                  max_score=assignment.max_score, submission_sha256=context.digest, fingerprint=context.stamp,
                  submitted_at=context.submitted_at, notes=notes + list(run.cut) + more, errors=scores.errors,
                  caught_by_visible=scores.caught_by_visible, observed=scores.observed,
                  review=list(context.review) + review_notes(nb, assignment),
                  signatures=failure_signatures(nb, assignment, scores.points, scores.errors),
                  tolerance_use=tolerance_uses(nb, assignment)), nb


def ended_early(context: Context, assignment, status: Status, notes: list) -> Result:
    """The result of a student graded without running anything: zero on every test."""
    return Result(student=context.student, assignment=assignment.assignment_id, status=status,
                  scores={name: 0.0 for name in assignment.tests}, max_score=assignment.max_score,
                  submission_sha256=context.digest, fingerprint=context.stamp, submitted_at=context.submitted_at,
                  notes=list(notes), review=list(context.review))
