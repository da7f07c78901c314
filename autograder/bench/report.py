"""How long the item analysis takes (items.csv, report.html, canvas.csv) for a synthetic class."""
import random
import tempfile
import time
from types import SimpleNamespace

from autograder.grading.items import write_analysis
from autograder.grading.gradebook import Final
from autograder.grading.verdict import Result

SIGNATURES = ("inf where the reference is finite", "NaN where the reference is finite", "within 64 ulps",
              "dtype torch.float64 where torch.float32 was expected", "method rule breach", "wrong shape")


def synthetic_class(students: int, tests: int, seed: int = 0) -> tuple:
    """(results, finals, assignment) for ``students`` with ``tests`` test cells of 3 points each."""
    rng = random.Random(seed)
    names = {f"test_{k}": 3 for k in range(tests)}
    assignment = SimpleNamespace(assignment_id="synthetic", tests=names, max_score=3.0 * tests)
    results, finals = [], {}
    for n in range(students):
        scores = {t: rng.choice((0.0, 1.5, 3.0, 3.0)) for t in names}
        signatures = {t: [[f"check {rng.randrange(5)}", rng.choice(SIGNATURES)]] for t, s in scores.items() if s < 3}
        student = f"s{n:04d}"
        results.append(Result(student, "synthetic", "graded", scores, assignment.max_score, signatures=signatures))
        finals[student] = Final(scores, assignment.max_score)
    return results, finals, assignment


def bench_report(out, students: int = 300, tests: int = 11, repeats: int = 3) -> float:
    """Print and return the best of ``repeats`` wall times of the item analysis, in seconds."""
    results, finals, assignment = synthetic_class(students, tests)
    best = float("inf")
    with tempfile.TemporaryDirectory(prefix="finite-bench-report-") as folder:
        for _ in range(repeats):
            start = time.perf_counter()
            write_analysis(results, finals, assignment, folder)
            best = min(best, time.perf_counter() - start)
    print(f"item analysis of {students} students x {tests} test cells (items.csv, report.html, canvas.csv): "
          f"{best:.3f} s (best of {repeats}; target under 1 s)", file=out)
    return best
