"""Command line: python -m autograder {release,check,grade,report,explain,kit,term,bench} ..."""
import argparse
import os
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from autograder.course import Course, CourseError, check_caps
from autograder.sandbox import limits as sandbox_limits
from autograder.sandbox.limits import Limits
from autograder.statuses import Status


EXIT_CODES = """exit codes: 0 done (every student has a status, see grades.csv); 2 nothing done, one line says
why (no such assignment or folder, no notebook of the assignment, a cap not enforced, the output folder
held by another run); 130 interrupted (run the same command again: only what did not finish is graded)"""


def parser():
    p = argparse.ArgumentParser(prog="python -m autograder", description=__doc__, epilog=EXIT_CODES)
    p.add_argument("--course", default=".", help="course root (default: current folder)")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("release", help="regenerate release/ from source/ through nbgrader")
    r.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")

    c = sub.add_parser("check", help="autograde solutions, blank release and every case; compare")
    c.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")
    c.add_argument("--workers", type=int, default=None, help="parallel autograde runs (default: cores)")

    g = sub.add_parser("grade", help="grade a folder of submissions in a sandbox, in parallel", epilog=EXIT_CODES)
    g.add_argument("submitted", metavar="SUBMITTED", help="folder laid out <student>/<ID>/<ID>.ipynb")
    g.add_argument("--assignment", required=True, metavar="ID")
    g.add_argument("--out", required=True, metavar="OUT", help="grades.csv, feedback/, summary.png")
    g.add_argument("--workers", type=int, default=None, help="parallel students (default: cores)")
    d = Limits()  # the defaults; the course's nbgrader_config.py (c.SandboxLimits) may change them
    for flag, name, kind, unit, what in sandbox_limits.flags():
        g.add_argument(flag, dest=name, type=kind, default=None, metavar=unit,
                       help=f"{what} (default: the course's c.SandboxLimits.{name}, else {getattr(d, name):g})")
    g.add_argument("--allow-uncapped", action="store_true",
                   help="grade even where this machine cannot enforce every cap (listed at start)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run submissions on this Dask cluster (tcp://host:8786) instead of local processes")
    g.add_argument("--regrade", action="store_true",
                   help="grade everyone again (default: keep results whose submission and assignment are unchanged)")
    g.add_argument("--dry-run", action="store_true",
                   help="list each student's notebook and whether it would be graded or kept; run and write nothing")

    r = sub.add_parser("report", help="grades.csv, summary.png and the item analysis from the gradebook and "
                                      "autograded/ (after nbgrader autograde or the Formgrader)")
    r.add_argument("assignment", metavar="ID")
    r.add_argument("--out", required=True, metavar="OUT",
                   help="grades.csv, summary.png, report.html, items.csv, canvas.csv")

    e = sub.add_parser("explain", help="what grades each exercise: its cells, points, method rule, observations "
                                       "and self-check cases")
    e.add_argument("assignment", metavar="ID")
    e.add_argument("grade_id", nargs="?", default="", metavar="GRADE_ID", help="one answer or test cell (default: all)")

    k = sub.add_parser("kit", help="write what students get (no source/, cases/ or grader) to a new folder")
    k.add_argument("out", metavar="OUT", help="a folder that does not exist yet, is empty, or holds only .git (kept)")

    t = sub.add_parser("term", help="the README's term on three throwaway OS accounts, step by step (as root)")
    t.add_argument("--learner-env", required=True, metavar="VENV",
                   help="the learners' environment, built from the kit ('A class on one server')")
    t.add_argument("--keep", action="store_true", help="keep the accounts and the term's folder to look at")

    b = sub.add_parser("bench", help="time each solved notebook against the kernel + torch floor")
    b.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")
    b.add_argument("--repeats", type=int, default=3, help="executions per notebook (default: 3)")
    b.add_argument("--grading", action="store_true",
                   help="benchmark batch grading instead (first ID only; default 01_nonassociativity)")
    b.add_argument("--profile", action="store_true",
                   help="where one graded notebook's seconds go, step by step (first ID only)")
    b.add_argument("--widgets", action="store_true",
                   help="time the fplab.explorers explorers instead: ms per slider move")
    b.add_argument("--report", action="store_true",
                   help="time the item analysis (report.html) of a synthetic class of --students (default 300 here)")
    b.add_argument("--students", type=int, default=24, help="submissions in the synthetic class (default 24)")
    b.add_argument("--workers", type=int, default=None, help="workers for the parallel run (default: cores)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    # nbgrader's gradebook shells out to alembic, which lives beside this interpreter.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    try:
        course = Course(Path(args.course))
        if args.command == "grade":
            return grade_command(course, args)
        if args.command == "report":
            from autograder.grading.batch import class_report

            results, largest = class_report(course, args.assignment, args.out)
            print(f"{len(results)} autograded students of {args.assignment}; wrote grades.csv, summary.png, report.html, "
                  f"items.csv and canvas.csv to {args.out}" + "".join(f"\n  {line}" for line in largest))
            return 0
        if args.command == "explain":
            from autograder.explain import explain

            course.resolve_ids([args.assignment])
            print(explain(course, args.assignment, args.grade_id))
            return 0
        if args.command == "kit":
            from autograder.kit import build_kit

            kit = build_kit(course, args.out)
            print(f"Wrote the learner kit to {kit.path}: {kit.assignments} assignments, {kit.files} files; "
                  f"none holds any of the {kit.lines_checked} solution and hidden-test lines checked.")
            return 0
        if args.command == "term":
            from autograder.term import main as term

            return term(course.root, Path(args.learner_env).resolve(), args.keep)
        ids = course.resolve_ids(args.ids)
        if args.command == "release":
            from autograder.release import release

            changed = release(course, ids)
            print(f"release/: {len(changed)} of {len(ids)} assignments changed"
                  + (f" ({', '.join(changed)})" if changed else ""))
            return 0
        if args.command == "check":
            from autograder.check import check_course
            from autograder.statuses import default_workers

            mismatches = check_course(course, ids, args.workers or default_workers(), sys.stdout, course.config.limits)
            print(f"\n{'all as expected' if not mismatches else f'{mismatches} MISMATCHES'}")
            return 1 if mismatches else 0
        if args.command == "bench" and args.widgets:
            from autograder.bench.widgets import bench_widgets

            bench_widgets(sys.stdout)
            return 0
        if args.command == "bench" and args.report:
            from autograder.bench.report import bench_report

            bench_report(sys.stdout, students=args.students if args.students != 24 else 300)
            return 0
        if args.command == "bench" and args.profile:
            from autograder.bench.profile import profile

            profile(course, (args.ids or ["01_nonassociativity"])[0], args.repeats, sys.stdout)
            return 0
        if args.command == "bench" and args.grading:
            from autograder.bench.grading import bench_grading
            from autograder.statuses import default_workers

            bench_grading(course, (args.ids or ["01_nonassociativity"])[0], args.students,
                          args.workers or default_workers(), sys.stdout)
            return 0
        if args.command == "bench":
            from autograder.bench.notebooks import bench

            bench(course, ids, args.repeats, sys.stdout)
            return 0
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        done = f" ({stop})" if str(stop) else ""
        print(f"\ninterrupted{done}: run the same command again to resume; only what did not finish runs",
              file=sys.stderr)
        return 130
    return 2


def limits_from(args, course) -> Limits:
    """The course's limits (``c.SandboxLimits``, as ``nbgrader autograde`` reads them), with the flags
    given on the command line instead; CourseError for a value out of its range."""
    given = {name: getattr(args, name) for _, name, *_ in sandbox_limits.flags() if getattr(args, name) is not None}
    try:
        return replace(course.config.limits, **given)
    except ValueError as error:
        raise CourseError(str(error)) from None


def grade_command(course, args):
    from autograder.grading.batch import grade_batch
    from autograder.sandbox.probe import describe, missing_caps
    from autograder.statuses import default_workers

    limits = limits_from(args, course)
    if args.dry_run:
        from autograder.grading.batch import dry_run

        lines = dry_run(course, args.submitted, args.assignment, args.out, limits, args.regrade)
        print("\n".join(lines) + f"\n{len(lines)} students; nothing was run or written (--dry-run)")
        return 0
    print(describe(limits), flush=True)
    for line in missing_caps(limits):
        print(f"cap not enforced: {line}", file=sys.stderr)
    check_caps(limits, args.allow_uncapped)
    batch = grade_batch(course, args.submitted, args.assignment, args.out, args.workers or default_workers(), limits,
                        regrade=args.regrade, scheduler=args.scheduler)
    print(summary(batch.results, batch.reasons, batch.finals))
    if batch.largest:
        print("The largest failure signatures (report.html says more):\n" + "\n".join(f"  {line}" for line in batch.largest))
    print(f"Wrote {Path(args.out) / 'grades.csv'}, feedback/, summary.png, report.html, items.csv and canvas.csv; "
          "scores are in the course gradebook (nbgrader export), autograded notebooks in autograded/ (the "
          "Formgrader's Manual Grading).")
    return 0


def summary(results, reasons=None, finals=None) -> str:
    """Counts by status and the class's mean final score; who was regraded and why, and who was
    kept; then, wrapped, one entry per student whose grading needs a look (a status, notes, code
    to review)."""
    counts = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    lines = [f"{len(results)} students: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))]
    if finals and results:
        by_hand = sum(bool(f.manual) for f in finals.values())
        mean = sum(f.score for f in finals.values()) / len(finals)
        lines.append(f"mean score {mean:.3g} / {results[0].max_score:g} (the gradebook's final grades"
                     + (f"; {by_hand} student(s) with cells graded by hand)" if by_hand else ")"))
    if reasons:
        by_reason = {}
        for student, reason in sorted(reasons.items()):
            by_reason.setdefault(reason, []).append(student)
        kept = by_reason.pop("kept", [])
        for reason, students in sorted(by_reason.items()):
            lines.append(f"graded ({reason}): {len(students)}: {', '.join(students[:12])}"
                         + (" ..." if len(students) > 12 else ""))
        if kept:
            lines.append(f"kept (submission, assignment and grader unchanged): {len(kept)}")
    ordered = sorted(results, key=lambda r: r.student)
    entries = [f"{r.student}: {r.status}; {'; '.join(r.notes)}" for r in ordered if r.status != Status.GRADED or r.notes]
    entries += [f"{r.student}: review: {'; '.join(map(str, r.review))}" for r in ordered if r.review]
    lines += [textwrap.fill(entry, width=100, initial_indent="  ", subsequent_indent="      ",
                            break_long_words=False, break_on_hyphens=False) for entry in entries]
    missing = counts.get(Status.MISSING.value, 0)
    if results and missing > len(results) / 2:
        lines.append(f"warning: {missing} of {len(results)} students have no notebook at <student>/<ID>/<ID>.ipynb: "
                     "is --assignment right, and is SUBMITTED the folder that holds the student folders?")
    return "\n".join(lines)
