"""The course directory: assignment ids, notebooks, and running nbgrader inside a copy of it."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat


class CourseError(Exception):
    """A problem the instructor can fix; the CLI prints it as one line."""


class Course:
    """The nbgrader course rooted at ``root`` (the repository root)."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        if not (self.root / "nbgrader_config.py").is_file():
            raise CourseError(f"{self.root} is not the course root: no nbgrader_config.py there")
        self.source = self.root / "source"
        self.release = self.root / "release"
        self.cases = self.root / "cases"

    @property
    def course_id(self) -> str:
        """``CourseDirectory.course_id`` from the course's nbgrader_config.py (the one place it is set)."""
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()
        return config.CourseDirectory.course_id

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
        shutil.copy2(self.source / "header.ipynb", dest / "source")
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
