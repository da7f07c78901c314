"""What the trusted side knows about an assignment, and the fingerprint a grade depends on.

Everything here comes from the course's own files (the source notebook, the release nbgrader
generated, the header): nothing from a submission. Its reference observations are filled by
:mod:`autograder.grading.reference`.
"""
import builtins
import hashlib
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import torch
from nbgrader import __version__ as nbgrader_version

import autograder
from autograder.course import CourseError, answer_cells, graded_tests, hidden_regions, read_notebook
from autograder.grading.disclosure import SecretFilter, assertion_templates
from autograder.sandbox.bubblewrap import fplab_dir
from autograder.source_text import checked_lines

@dataclass
class Assignment:
    """Everything trusted the grader knows about one assignment."""

    assignment_id: str
    release: dict  # {grade_id: release cell} for locked cells, to detect tampering
    tests: dict  # {test grade_id: points}
    secrets: SecretFilter  # recognises hidden tests and solutions in text shown as feedback
    templates: dict = field(default_factory=dict)  # {test grade_id: regexes of visible assert messages}
    rules: dict = field(default_factory=dict)  # {test grade_id: (answer grade_id, [allowed names])}
    released_code: frozenset = frozenset()  # sources of the release's code cells (unchanged = not the learner's)
    released_text: frozenset = frozenset()  # sources of the release's markdown cells (the Formgrader renders only these)
    reference: dict = field(default_factory=dict)  # {test grade_id: [Observation]} from the solutions
    db_url: str = ""  # the gradebook nbgrader's OverwriteCells restores locked cells from
    hidden_lines: tuple = ()  # hidden-test lines worth checking (source_text.checked_lines): no submission holds them
    cell_roles: dict = field(default_factory=dict)  # {cell id: nbgrader metadata} of the release's nbgrader cells
    key: dict = field(default_factory=dict)  # {answer grade_id: the source's answer cell}, for graders only

    @property
    def max_score(self) -> float:
        return float(sum(self.tests.values()))

    @cached_property
    def public_names(self) -> frozenset:
        """The exception class names feedback may show: builtins and the words of the release's code
        (any other name was chosen by the learner's code and may encode what it saw)."""
        words = {w for source in self.released_code for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source)}
        return frozenset(name for name in dir(builtins) if isinstance(getattr(builtins, name), type)) | words


def load_assignment(course, assignment_id: str, release_nb=None, db_url: str = "") -> Assignment:
    """The :class:`Assignment` (without its reference) from the source notebook and the release
    (``release_nb``, else the course's ``release/ID/ID.ipynb``)."""
    source_nb = course.source_notebook(assignment_id)
    if release_nb is None:
        release_nb = read_notebook(course.release_path(assignment_id))
    tests = graded_tests(source_nb)
    if not tests:
        raise CourseError(f"{assignment_id}: the source notebook has no graded test cells")
    locked = {c.metadata["nbgrader"]["grade_id"]: c for c in release_nb.cells
              if c.metadata.get("nbgrader", {}).get("locked")}
    header_nb = read_notebook(course.header_path)
    secrets = [region for cell in source_nb.cells for region in hidden_regions(cell.source)]
    public = [cell.source for nb in (release_nb, header_nb) for cell in nb.cells]
    rules = {}
    for cell in source_nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        allow = cell.metadata.get("finite", {}).get("allow")
        if meta.get("solution") and allow is not None and f"test_{meta['grade_id']}" in tests:
            rules[f"test_{meta['grade_id']}"] = (meta["grade_id"], [str(name) for name in allow])
    hidden_tests = [region for cell in source_nb.cells for region in hidden_regions(cell.source, solutions=False)]
    # A line the solutions also hold is one an honest learner may write: only the tests' own count.
    answers = {line.strip() for cell in source_nb.cells for region in hidden_regions(cell.source, tests=False)
               for line in region.splitlines()}
    return Assignment(
        assignment_id, locked, tests, SecretFilter(secrets, public),
        templates={g: assertion_templates(c.source) for g, c in locked.items() if g in tests},
        rules=rules, released_code=frozenset(c.source for c in release_nb.cells if c.cell_type == "code"),
        released_text=frozenset(c.source for c in release_nb.cells if c.cell_type == "markdown"),
        db_url=db_url, hidden_lines=tuple(line for line in checked_lines(hidden_tests, "\n".join(public))
                                          if line not in answers),
        cell_roles={c.id: c.metadata["nbgrader"] for c in release_nb.cells if "nbgrader" in c.metadata and "id" in c},
        key={grade_id: cell.source for grade_id, cell in answer_cells(source_nb).items()},
    )


def fingerprint(course, assignment_id: str, limits) -> str:
    """A hash of everything a grade depends on besides the submission: the source and release
    notebooks and the header, the course config, the learner-side package the kernel imports, the
    grader's own code and templates, the limits and the versions."""
    digest = hashlib.sha256()
    code = [path for package in (fplab_dir(), Path(autograder.__file__).parent)
            for path in sorted(package.rglob("*")) if path.suffix in (".py", ".j2")]
    files = [course.source_path(assignment_id), course.release_path(assignment_id),
             course.header_path, course.root / "nbgrader_config.py", *code]
    for path in files:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(repr((limits, torch.__version__, nbgrader_version, sys.version)).encode())
    return digest.hexdigest()
