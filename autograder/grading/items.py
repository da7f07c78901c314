"""Item analysis: which test cell the class missed, and why (the instructor's; never a student's).

From the final grades (manual scores included) and each result's failure signatures
(:mod:`autograder.grading.signatures`, the judge's words): per test cell its points, mean and
spread, the share of full, partial and zero scores, the discrimination index (how a cell's score
goes with the rest of the assignment's), how many were flagged for review or stopped, and the
wrong answers grouped by what differed. Written beside grades.csv as ``items.csv``, ``report.html``
(one self-contained page) and ``canvas.csv`` (the layout Canvas's gradebook import takes).
"""
import base64
import csv
import io
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading.feedback import TEMPLATES
from autograder.grading.files import write_atomic
from autograder.statuses import Status

NO_NOTEBOOK = (Status.MISSING, Status.UNREADABLE, Status.INVALID_ID, Status.REFUSED, Status.REVIEW,
               Status.GRADER_ERROR)  # nothing ran: no score to analyse
STOPPED = (Status.TIMEOUT, Status.KERNEL_DIED, Status.RESOURCE_LIMIT)


@dataclass(frozen=True)
class Group:
    """Wrong answers to one test cell that differed the same way."""

    signature: str
    students: tuple
    example: str  # the first observation that differed so (a hidden test's name: the instructor's)


@dataclass(frozen=True)
class Item:
    test: str
    points: float
    students: int
    mean: float
    sd: float
    full: int
    partial: int
    zero: int
    discrimination: float | None  # Pearson r of this cell's score with the rest of the total; None if undefined
    review: int  # students with code to review (grades.csv's review column)
    stopped: int  # students whose run stopped (time, crash, cap)
    groups: list = field(default_factory=list)  # [Group], largest first


def _pearson(xs, ys) -> float | None:
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return statistics.correlation(xs, ys)


def analyse(results, finals: dict, assignment) -> list:
    """[Item] per test cell, over the students whose notebook ran."""
    ran = [r for r in results if r.status not in NO_NOTEBOOK]
    totals = {r.student: finals[r.student].score for r in ran}
    items = []
    for test, points in assignment.tests.items():
        got = {r.student: finals[r.student].scores.get(test, 0.0) for r in ran}
        scores = list(got.values())
        grouped, examples = defaultdict(list), {}
        for r in ran:
            if got[r.student] >= points:
                continue
            first = (r.signatures.get(test) or [["", "no signature (graded before signatures were kept)"]])[0]
            grouped[first[1]].append(r.student)
            examples.setdefault(first[1], first[0])
        groups = sorted((Group(s, tuple(sorted(names)), examples[s]) for s, names in grouped.items()),
                        key=lambda g: (-len(g.students), g.signature))
        items.append(Item(
            test, float(points), len(ran), statistics.fmean(scores) if scores else 0.0,
            statistics.pstdev(scores) if len(scores) > 1 else 0.0,
            sum(s >= points for s in scores), sum(0 < s < points for s in scores), sum(s <= 0 for s in scores),
            _pearson(scores, [totals[n] - got[n] for n in got]), sum(bool(r.review) for r in ran),
            sum(r.status in STOPPED for r in ran), groups))
    return items


def largest_signatures(items, count: int = 3) -> list:
    """The ``count`` largest failure groups of the batch, as one line each (for the terminal)."""
    groups = sorted(((len(g.students), item.test, g) for item in items for g in item.groups),
                    key=lambda t: (-t[0], t[1], t[2].signature))[:count]
    return [f"{test}: {n} student{'s' if n != 1 else ''}: {g.signature}" + (f" (first at {g.example})" if g.example else "")
            for n, test, g in groups]


def write_items(items, out) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["test", "points", "students", "mean", "sd", "full", "partial", "zero", "discrimination",
                     "review", "stopped", "largest_signature", "largest_signature_students"])
    for i in items:
        top = i.groups[0] if i.groups else None
        writer.writerow([i.test, f"{i.points:g}", i.students, f"{i.mean:.3f}", f"{i.sd:.3f}", i.full, i.partial,
                         i.zero, "" if i.discrimination is None else f"{i.discrimination:.3f}", i.review, i.stopped,
                         top.signature if top else "", len(top.students) if top else 0])
    write_atomic(Path(out) / "items.csv", buffer.getvalue())


def write_canvas(results, finals: dict, assignment, out) -> None:
    """canvas.csv: the columns Canvas's gradebook import reads (Student, ID, SIS User ID, SIS Login
    ID, Section, then one column per assignment with its points), a row per student; the nbgrader
    student id goes in SIS Login ID, where Canvas matches it (README: Grades to an LMS)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment.assignment_id])
    writer.writerow(["Points Possible", "", "", "", "", f"{assignment.max_score:g}"])
    for r in sorted(results, key=lambda r: r.student):
        writer.writerow([r.student, "", "", r.student, "", f"{finals[r.student].score:g}"])
    write_atomic(Path(out) / "canvas.csv", buffer.getvalue())


def _plot(items, title: str) -> str:
    """Full / partial / zero per test cell, as a base64 PNG."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 0.45 * len(items) + 1.2))
    fig.subplots_adjust(left=0.3, right=0.97, top=0.85, bottom=0.2)
    axes = fig.subplots()
    names = [i.test for i in items]
    full, partial, zero = ([getattr(i, k) for i in items] for k in ("full", "partial", "zero"))
    axes.barh(names, full, color="#1a7f37", label="full")
    axes.barh(names, partial, left=full, color="#d4a72c", label="partial")
    axes.barh(names, zero, left=[f + p for f, p in zip(full, partial)], color="#cf222e", label="zero")
    axes.invert_yaxis()
    axes.set_xlabel("students")
    axes.set_title(title)
    axes.legend(loc="lower right", fontsize="small")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return base64.b64encode(buffer.getvalue()).decode()


def write_report(items, results, assignment, out) -> None:
    """report.html: one screen per assignment of which test cell the class missed and why."""
    ran = items[0].students if items else 0
    plot = _plot(items, f"{assignment.assignment_id}: {ran} students whose notebook ran") if ran else ""
    statuses = defaultdict(int)
    for r in results:
        statuses[str(r.status)] += 1
    page = TEMPLATES.get_template("items.html.j2").render(
        assignment=assignment.assignment_id, items=items, ran=ran, students=len(results), plot=plot,
        statuses=dict(sorted(statuses.items())), largest=largest_signatures(items))
    write_atomic(Path(out) / "report.html", page)


def write_analysis(results, finals: dict, assignment, out) -> list:
    """items.csv, report.html and canvas.csv in ``out``; returns the terminal's three lines."""
    items = analyse(results, finals, assignment)
    write_items(items, out)
    write_report(items, results, assignment, out)
    write_canvas(results, finals, assignment, out)
    return largest_signatures(items)
