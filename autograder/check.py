"""Self-check: the solutions, the blank release and every case, graded by the pipeline that
grades students (``grade_batch``: sandbox, reference run, verdict), each compared with what it
must score."""
import shutil
import tempfile
from pathlib import Path

import nbformat

from autograder.grading.batch import grade_batch
from autograder.grading.scheduling import worker_pool
from autograder.cases import build_submission, load_cases, student_id
from autograder.course import answer_cells, graded_tests, read_notebook
from autograder.lint import lint_notebook
from autograder.statuses import Status
from autograder.sandbox.limits import Limits
from autograder.grading.signatures import VISIBLE
from fplab.rules import RULE_PREFIX


def write_submissions(course, assignment_id, cases, folder) -> None:
    """``<student>/<ID>/<ID>.ipynb`` under ``folder`` for each ``{student: case}``."""
    release_nb = read_notebook(course.release_path(assignment_id))
    solutions = answer_cells(course.source_notebook(assignment_id))
    for student, case in cases.items():
        path = Path(folder) / student / assignment_id / f"{assignment_id}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(build_submission(release_nb, solutions, case), path)


def check_course(course, ids, workers: int, out, limits: Limits = Limits()) -> int:
    """:func:`check_assignment` for each of ``ids``, on one pool of ``workers``; the total."""
    with worker_pool(workers) as pool:
        return sum(check_assignment(course, assignment_id, workers, out, limits, pool) for assignment_id in ids)


def check_assignment(course, assignment_id: str, workers: int, out, limits: Limits = Limits(), pool=None) -> int:
    """Lint the hidden regions, then grade every case of one assignment (on ``pool`` when given);
    print a row per finding and per case; return the number of findings and mismatches."""
    source_nb = course.source_notebook(assignment_id)
    findings = lint_notebook(assignment_id, source_nb)
    for finding in findings:
        print(f"  LINT {finding}", file=out)
    if findings:
        print(f"{assignment_id}: {len(findings)} hidden-test lint finding(s): a hidden region holds inputs and "
              "observations only (AUTHORING.md); not graded until they are fixed", file=out)
        return len(findings)
    cases = load_cases(course, assignment_id, answer_cells(source_nb))
    with tempfile.TemporaryDirectory(prefix="finite-check-") as workdir:
        write_submissions(course, assignment_id, {student_id(c): c for c in cases}, Path(workdir) / "submitted")
        results = grade_batch(course, Path(workdir) / "submitted", assignment_id, Path(workdir) / "out",
                              workers, limits, progress=False, regrade=True,
                              record_grades=False, pool=pool).results
        kept = course.cache / "check" / assignment_id
        kept.mkdir(parents=True, exist_ok=True)
        for name in ("report.html", "items.csv"):
            shutil.copyfile(Path(workdir) / "out" / name, kept / name)
    found = report(assignment_id, cases, graded_tests(source_nb), {r.student: r for r in results}, out)
    print(f"  the self-check class's item analysis: {kept.relative_to(course.root) / 'report.html'}", file=out)
    return found


def report(assignment_id, cases, tests, results, out) -> int:
    """Print one row per case: what it must score, what it scored, and whether they agree; then
    the share of a learner's wrong answers (the generic attacks aside) that a visible test alone
    catches. Returns the number of mismatches."""
    total = sum(tests.values())
    width = max(len(c.name) for c in cases)
    want_width = max(len(describe_expectation(c, total)) for c in cases)
    print(f"\n{assignment_id}  ({len(cases)} submissions, {total:g} points)", file=out)
    mismatches = 0
    for case in cases:
        result = results[student_id(case)]
        expected = case.expected(tests)
        wrong = {t: (result.scores.get(t, 0.0), expected[t]) for t in tests
                 if expected[t] is not None and result.scores.get(t, 0.0) != expected[t]}
        if case.partial and not 0 < result.scores.get(case.partial, 0.0) < tests[case.partial]:
            wrong[case.partial] = (result.scores.get(case.partial, 0.0), "some")
        detail = f"{result.score:g}/{total:g}"
        if case.failing or case.partial:
            detail += f"  {case.failing or case.partial}={result.scores.get(case.failing or case.partial, 0):g}"
        if wrong:
            detail += "  unexpected: " + ", ".join(f"{t} got {g:g} want {w if isinstance(w, str) else f'{w:g}'} "
                                                   f"({result.errors.get(t, '')[:120]})" for t, (g, w) in wrong.items())
        if case.failing and result.observed.get(case.failing, 0.0) >= 1.0:
            detail += f"  {case.failing} fails only in the kernel: its observations match the solution's"
            wrong = wrong or {"judge": None}
        if result.status != Status.GRADED:
            detail += f"  status {result.status}: {'; '.join(result.notes)[:200]}"
            wrong = wrong or {"status": None}
        verdict = "ok" if not wrong else "MISMATCH"
        mismatches += verdict != "ok"
        print(f"  {case.name:<{width}}  want {describe_expectation(case, total):<{want_width}}  "
              f"got {detail:<24} {verdict}", file=out)
        if case.failing and result.signatures.get(case.failing):
            print(f"  {'':<{width}}  differed: {result.signatures[case.failing][0][1]}", file=out)
    for line in tolerance_audit(cases, tests, results):
        print(f"  {line}", file=out)
    wrongs = [c for c in cases if c.failing and not c.attack]
    if wrongs:
        # A rule breach counts as caught: the visible test's check_rule reports it to the learner with
        # the grader's verdict (tests/test_rule_check.py), though it stands aside while graded.
        caught = sum(c.failing in results[student_id(c)].caught_by_visible or
                     results[student_id(c)].errors.get(c.failing, "").startswith(RULE_PREFIX) for c in wrongs)
        print(f"  visible tests alone catch {caught} of {len(wrongs)} wrong answers "
              f"({100 * caught / len(wrongs):.0f} %; aim >= 60 %)", file=out)
    return mismatches


def tolerance_audit(cases, tests, results) -> list:
    """A line per test cell with a tolerance: the most of it a full-marks answer uses (every case
    that must pass the cell: the solution written other ways), the least a wrong case that lost the
    cell by value uses (the weakest wrong method there: above 1, or the tolerance would admit it),
    and the wrong cases a visible check stopped before the hidden observations."""
    lines = []
    for test in tests:
        right, wrong, stopped = [], [], []
        for case in cases:
            result = results[student_id(case)]
            use, wrong_here = result.tolerance_use.get(test), case.failing == test and not case.attack
            if wrong_here and result.signatures.get(test, [["", ""]])[0][1].startswith(VISIBLE):
                stopped.append(case.name.split("--")[-1])
            elif use is not None and case.expected(tests)[test] == tests[test]:
                right.append((use, case.name))
            elif use is not None and wrong_here and use > 1:
                wrong.append((use, case.name))
        if not right:
            continue
        line = f"tolerance of {test}: full-marks answers use at most {max(right)[0]:.2g} of it ({len(right)} cases)"
        if wrong:
            line += f"; the nearest wrong by value, {min(wrong)[1]}, {min(wrong)[0]:.2g} times it"
        if stopped:
            line += f"; stopped by a visible check first: {', '.join(stopped)}"
        lines.append(line)
    return lines


def describe_expectation(case, total) -> str:
    if case.blank:
        return "0 (runs to the end)"
    if case.attack:
        return f"{case.failing}=0"
    if case.failing:
        return f"{case.failing}=0, rest full"
    if case.partial:
        return f"{case.partial} part, rest full"
    return f"{total:g}/{total:g}"
