"""Command line: python -m autograder {release,check,bench} [ID ...]."""
import argparse
import sys
from pathlib import Path

from autograder.course import Course, CourseError


def parser():
    p = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    p.add_argument("--course", default=".", help="course root (default: current folder)")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("release", help="regenerate release/ from source/ through nbgrader")
    r.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")

    c = sub.add_parser("check", help="autograde solutions, blank release and every case; compare")
    c.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")
    c.add_argument("--workers", type=int, default=None, help="parallel autograde runs (default: cores)")

    b = sub.add_parser("bench", help="time each solved notebook against the kernel + torch floor")
    b.add_argument("ids", nargs="*", metavar="ID", help="assignment ids (default: all)")
    b.add_argument("--repeats", type=int, default=3, help="executions per notebook (default: 3)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        course = Course(Path(args.course))
        ids = course.resolve_ids(args.ids)
        if args.command == "release":
            from autograder.release import release

            changed = release(course, ids)
            print(f"release/: {len(changed)} of {len(ids)} assignments changed"
                  + (f" ({', '.join(changed)})" if changed else ""))
            return 0
        if args.command == "check":
            from autograder.check import check_assignment, default_workers

            workers = args.workers or default_workers()
            mismatches = sum(check_assignment(course, i, workers, sys.stdout) for i in ids)
            print(f"\n{'all as expected' if not mismatches else f'{mismatches} MISMATCHES'}")
            return 1 if mismatches else 0
        if args.command == "bench":
            from autograder.bench import bench

            bench(course, ids, args.repeats, sys.stdout)
            return 0
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 2
