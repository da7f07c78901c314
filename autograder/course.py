"""The course directory: its configuration, assignment ids, where each file lives, and running
nbgrader inside a copy of it."""
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import nbformat
from traitlets.config import Config

from autograder.sandbox.limits import Limits, SandboxLimits
from autograder.sandbox.probe import missing_caps

CACHE = ".finite"  # course-level, git-ignored: the reference observations, nbgrader's generations, locks


class CourseError(Exception):
    """A problem the instructor can fix; the CLI prints it as one line."""


@dataclass(frozen=True)
class CourseConfig:
    """The course's ``nbgrader_config.py``, read once per process (:meth:`load`): what nbgrader's own
    commands read, and the two things the grader takes from it."""

    nbgrader: Config  # the whole configuration, as nbgrader autograde and the Formgrader load it
    course_id: str  # CourseDirectory.course_id
    limits: Limits  # c.SandboxLimits, checked (Limits.__post_init__)

    @staticmethod
    @lru_cache(maxsize=None)
    def load(root: Path) -> "CourseConfig":
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
        try:
            limits = SandboxLimits(config=config).limits()
        except ValueError as error:
            raise CourseError(f"{root / 'nbgrader_config.py'}: c.SandboxLimits: {error}") from None
        return CourseConfig(config, config.CourseDirectory.course_id, limits)


def check_caps(limits: Limits, allow_uncapped: bool) -> list:
    """The caps this machine cannot enforce; CourseError unless ``allow_uncapped``."""
    missing = missing_caps(limits)
    if missing and not allow_uncapped:
        raise CourseError(f"{len(missing)} cap(s) cannot be enforced on this machine: " + "; ".join(missing)
                          + " (see README, Caps per submission, or pass --allow-uncapped)")
    return missing


class Course:
    """The nbgrader course rooted at ``root`` (the repository root), and where its files live."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        if not (self.root / "nbgrader_config.py").is_file():
            raise CourseError(f"{self.root} is not the course root: no nbgrader_config.py there")
        self.source = self.root / "source"
        self.release = self.root / "release"
        self.cases = self.root / "cases"

    @cached_property
    def config(self) -> CourseConfig:
        return CourseConfig.load(self.root)

    @property
    def course_id(self) -> str:
        return self.config.course_id

    @property
    def cache(self) -> Path:
        return self.root / CACHE

    @property
    def header_path(self) -> Path:
        """The preamble nbgrader prepends to every released notebook."""
        return self.source / "header.ipynb"

    @property
    def gradebook_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}"

    def release_path(self, assignment_id) -> Path:
        """The student notebook as committed in release/."""
        return self.release / assignment_id / f"{assignment_id}.ipynb"

    def autograded_path(self, student, assignment_id) -> Path:
        """Where nbgrader's Formgrader and ``generate_feedback`` read a student's autograded notebook."""
        return self.root / "autograded" / student / assignment_id / f"{assignment_id}.ipynb"

    def autograded_notebooks(self, assignment_id) -> list:
        """Every student's autograded notebook of ``assignment_id``, by student (links included: the
        caller skips them)."""
        return sorted(self.root.joinpath("autograded").glob(f"*/{assignment_id}/{assignment_id}.ipynb"))

    def assignment_ids(self):
        """Every assignment in source/, in course order."""
        return sorted(p.name for p in self.source.iterdir() if (p / f"{p.name}.ipynb").is_file())

    def resolve_ids(self, ids):
        """The ids asked for (all when empty), each checked to exist and hold a valid notebook."""
        known = self.assignment_ids()
        for assignment_id in ids:
            if assignment_id not in known:
                folder = self.source / assignment_id
                why = "has no notebook of the same name" if folder.is_dir() else "does not exist"
                raise CourseError(
                    f"unknown assignment {assignment_id!r}: {folder} {why} "
                    f"(known: {', '.join(known) or 'none'})"
                )
        chosen = list(ids) or known
        for assignment_id in chosen:
            self.source_notebook(assignment_id)
        return chosen

    def source_path(self, assignment_id):
        return self.source / assignment_id / f"{assignment_id}.ipynb"

    def source_notebook(self, assignment_id):
        return read_notebook(self.source_path(assignment_id))

    def copy_to(self, dest, ids):
        """A minimal copy of the course in ``dest``: config, header and the given source folders."""
        dest = Path(dest)
        (dest / "source").mkdir(parents=True)
        shutil.copy2(self.root / "nbgrader_config.py", dest)
        shutil.copy2(self.header_path, dest / "source")
        for assignment_id in ids:
            shutil.copytree(self.source / assignment_id, dest / "source" / assignment_id)
        return dest


def read_notebook(path):
    """Read a notebook, turning any parse failure into one clear CourseError."""
    path = Path(path)
    if not path.is_file():
        raise CourseError(f"{path} does not exist")
    try:
        return nbformat.read(path, as_version=4)
    except Exception as error:  # nbformat raises several unrelated types
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CourseError(f"{path} is not a valid notebook: {first_line}") from None


def nbgrader(args, cwd, timeout=None, check=True, environ=None):
    """Run ``nbgrader ARGS`` in ``cwd`` with ``environ`` (default: this process's environment);
    unless ``check`` is false, raise CourseError with its log tail when it fails."""
    env = dict(os.environ if environ is None else environ)
    # nbgrader shells out to alembic, which lives beside this interpreter.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("NBGRADER_EXECUTION", None)
    # Parallel autograde runs share the cores: one thread per kernel avoids oversubscription.
    env.setdefault("OMP_NUM_THREADS", "1")
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )
    if check and done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise CourseError(f"nbgrader {' '.join(args)} failed: " + " | ".join(tail))
    return done


def answer_cells(nb):
    """{grade_id: cell} for every answer cell of a notebook."""
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def answer_of(test: str) -> str:
    """The answer cell a test cell grades (the course's naming rule: ``test_<answer>``)."""
    return test.removeprefix("test_")


def graded_tests(nb):
    """{grade_id: points} for every autograded test cell, in notebook order."""
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"].get("points", 0)
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code"
    }


def hidden_regions(source: str, solutions: bool = True, tests: bool = True) -> list:
    """The text of every solution region (unless not ``solutions``) and hidden-test region (unless
    not ``tests``) of a cell, found with nbgrader's own (configurable) delimiters."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    answers, hidden = ClearSolutions(), ClearHiddenTests()
    pairs = ([(answers.begin_solution_delimeter, answers.end_solution_delimeter)] if solutions else []) + \
        ([(hidden.begin_test_delimeter, hidden.end_test_delimeter)] if tests else [])
    found = []
    for begin, end in pairs:
        pattern = re.compile(rf"^[ \t]*#+[ \t]*{re.escape(begin)}[^\n]*\n(.*?)^[ \t]*#+[ \t]*{re.escape(end)}", re.S | re.M)
        found += [m[1] for m in pattern.finditer(source)]
    return found
