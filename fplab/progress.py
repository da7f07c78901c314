"""Where a learner stands: what the notebook's own visible checks found, and demos that wait.

A test cell wraps its visible asserts in :func:`visible_checks`; a demo that calls a learner's
function runs inside :func:`demo`; the last cell of an assignment calls :func:`summary`. Only
what the learner's kernel itself ran is recorded: no hidden test, no grading.
"""
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Mapping

# What a row says. Visible checks are a few cases: passing them is not a score, so the row says so.
PASSED, FAILED, NOT_ATTEMPTED = "pass; the grader checks more", "fail", "not attempted"
NOT_RUN = "its test cell has not run"
_found: dict = {}  # exercise -> (state, first message)
_workdirs: dict = {}  # prefix -> this kernel's folder


@dataclass(frozen=True)
class Exercise:
    """One graded exercise: its points and what its visible checks found."""
    name: str
    points: float
    state: str
    why: str = ""


def first_line(name: str, text: str) -> str:
    """``name: `` and the first line of ``text`` (120 characters at most), or ``name`` alone."""
    lines = text.strip().splitlines()
    return f"{name}: {lines[0][:120]}" if lines else name


def _first_line(error: BaseException) -> str:
    return first_line(type(error).__name__, str(error))


def table(rows) -> str:
    """Exercises as the notebook's summary lays them out: name, points, visible checks."""
    width = max(len("exercise"), *(len(row.name) for row in rows))
    lines = [f"{'exercise':<{width}}  points  visible checks", f"{'-' * width}  ------  --------------"]
    lines += [f"{row.name:<{width}}  {row.points:>6g}  {row.state}" + (f" ({row.why})" if row.why else "")
              for row in rows]
    return "\n".join(lines)


def passing(rows) -> str:
    passed = sum(row.state == PASSED for row in rows)
    return f"{passed} of {len(rows)} exercises pass their visible checks"


@contextmanager
def visible_checks(exercise: str) -> Iterator[None]:
    """Record whether the visible checks of ``exercise`` pass, then let any error through.

    ``NotImplementedError`` (the stub) and a ``NameError`` (an answer not written yet) count as
    not attempted; any other error as a failure, with its first line.
    """
    try:
        yield
    except NotImplementedError:
        _found[exercise] = (NOT_ATTEMPTED, "")
        raise
    except NameError as error:
        _found[exercise] = (NOT_ATTEMPTED, _first_line(error))
        raise
    except Exception as error:
        _found[exercise] = (FAILED, _first_line(error))
        raise
    _found[exercise] = (PASSED, "")
    print(f"{exercise}: visible checks passed")


def require_answers(namespace: Mapping, *names: str) -> None:
    """Raise ``NameError("answer the quiz first: ...")`` unless every name in ``names`` is set."""
    missing = [name for name in names if name not in namespace]
    if missing:
        raise NameError(f"answer the quiz first: {', '.join(missing)} not set yet (run the quiz cell)")


@contextmanager
def demo(*exercises: str) -> Iterator[None]:
    """Run a demo that needs the learner's ``exercises``: while one is still the stub, print one
    line saying so instead of a traceback. Any other error is the learner's to see."""
    try:
        yield
    except NotImplementedError:
        names = " and ".join(f"`{name}`" for name in exercises)
        print(f"This demo needs {names}, not written yet: fill it in above, then run this cell again.")


def summary(points: Mapping[str, float]) -> None:
    """Print one line per exercise: its points and what its visible checks found in this kernel,
    in the order given. A pass says that the grader checks more: it is not a score."""
    rows = [Exercise(name, float(value), *_found.get(name, (NOT_ATTEMPTED, NOT_RUN))) for name, value in points.items()]
    print(f"{table(rows)}\n\n{passing(rows)}. That is not a score: when your notebook is graded, hidden tests "
          "check more cases.")


def workdir(prefix: str) -> str:
    """A working folder for this kernel, made once and the same on every call (re-running a cell
    is harmless), removed when the kernel exits."""
    import atexit
    import shutil
    import tempfile

    if prefix not in _workdirs:
        _workdirs[prefix] = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, _workdirs[prefix], ignore_errors=True)
    return _workdirs[prefix]

