"""Self-check: real nbgrader autograde of the solutions, the blank release and every case."""
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from autograder.cases import load_cases, student_id
from autograder.course import CourseError, nbgrader, answer_cells, graded_tests
from autograder.release import generate


def build_submission(release_nb, solutions, case):
    """The release notebook with answer cells filled: case answers first, source solutions next."""
    nb = nbformat.from_dict(release_nb)
    if case.blank:
        return nb
    for grade_id, cell in answer_cells(nb).items():
        cell.source = case.answers.get(grade_id, solutions[grade_id].source)
    return nb


def autograde_group(course_copy, assignment_id, submissions, dest):
    """Autograde ``submissions`` ({student: notebook}) in a private copy of the generated course.

    Returns ({student: {test grade_id: score}}, nbgrader's log); a student nbgrader could not
    grade is absent from the scores.
    """
    shutil.copytree(course_copy, dest)
    for student, nb in submissions.items():
        folder = dest / "submitted" / student / assignment_id
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{assignment_id}.ipynb")
    # A student nbgrader could not grade is reported as a mismatch by the caller, not raised here.
    # Kernels talk over Unix sockets in this copy: parallel copies racing for the same free TCP
    # port would kill a kernel at start and zero a whole submission.
    done = nbgrader(["autograde", assignment_id, "--force", "--KernelManager.transport=ipc",
                     f"--KernelManager.ip={dest / 'kernel'}"], cwd=dest, check=False)
    scores = {}
    with Gradebook(f"sqlite:///{dest / 'gradebook.db'}") as gradebook:
        for student in submissions:
            try:
                notebook = gradebook.find_submission_notebook(assignment_id, assignment_id, student)
            except MissingEntry:
                continue
            scores[student] = {g.name: g.score for g in notebook.grades if g.cell_type == "code"}
    return scores, done.stdout + done.stderr


def check_assignment(course, assignment_id, workers, out):
    """Grade every case of one assignment; print a row per case; return the number of mismatches."""
    source_nb = course.source_notebook(assignment_id)
    solutions, tests = answer_cells(source_nb), graded_tests(source_nb)
    if not tests:
        raise CourseError(f"{assignment_id}: the source notebook has no graded test cells")
    cases = load_cases(course, assignment_id, solutions)
    with tempfile.TemporaryDirectory(prefix="finite-check-") as workdir:
        workdir = Path(workdir)
        course_copy = generate(course, [assignment_id], workdir)
        release_nb = nbformat.read(
            course_copy / "release" / assignment_id / f"{assignment_id}.ipynb", as_version=4
        )
        submissions = {student_id(c): build_submission(release_nb, solutions, c) for c in cases}
        students = list(submissions)
        groups = [students[i::workers] for i in range(workers) if students[i::workers]]
        with ThreadPoolExecutor(len(groups)) as pool:
            futures = [
                pool.submit(
                    autograde_group, course_copy, assignment_id,
                    {s: submissions[s] for s in group}, workdir / f"group{i}",
                )
                for i, group in enumerate(groups)
            ]
            scores, log = {}, ""
            for future in futures:
                group_scores, group_log = future.result()
                scores.update(group_scores)
                log += group_log
    return report(assignment_id, cases, tests, scores, log, out)


def report(assignment_id, cases, tests, scores, log, out):
    """Print one row per case: what it must score, what it scored, and whether they agree."""
    total = sum(tests.values())
    width = max(len(c.name) for c in cases)
    want_width = max(len(describe_expectation(c, total)) for c in cases)
    print(f"\n{assignment_id}  ({len(cases)} submissions, {total} points)", file=out)
    mismatches = 0
    for case in cases:
        expected = case.expected(tests)
        got = scores.get(student_id(case))
        if got is None:
            verdict, detail = "MISMATCH", "not graded by nbgrader: " + " | ".join(
                line.strip() for line in log.splitlines() if student_id(case) in line)[-300:]
        else:
            wrong = {t: (got.get(t), expected[t]) for t in tests if got.get(t) != expected[t]}
            verdict = "ok" if not wrong else "MISMATCH"
            detail = f"{sum(v or 0 for v in got.values()):g}/{total:g}"
            if case.failing:
                detail += f"  {case.failing}={got.get(case.failing, 0):g}"
            if wrong:
                detail += "  unexpected: " + ", ".join(
                    f"{t} got {g:g} want {w:g}" for t, (g, w) in wrong.items()
                )
        mismatches += verdict != "ok"
        want = describe_expectation(case, total)
        print(f"  {case.name:<{width}}  want {want:<{want_width}}  got {detail:<24} {verdict}", file=out)
    return mismatches


def describe_expectation(case, total):
    if case.blank:
        return "0 (runs to the end)"
    if case.failing:
        return f"{case.failing}=0, rest full"
    return f"{total:g}/{total:g}"


def default_workers():
    return max(1, os.cpu_count() or 1)
