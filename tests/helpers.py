"""Pieces several test modules share that are not fixtures: writing submissions, and the term's scores."""
import sys
from pathlib import Path

import nbformat

from autograder.cases import with_answers

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
from make_fixture_course import ASSIGNMENT  # noqa: E402

GOOD_DOUBLE = "def double(x):\n    return x + x"
GOOD_TRIPLE = "def triple(x):\n    return 3 * x"
# What the term (autograder.term: tests/test_term.py, tests/test_hub.py) judges each student's work.
TERM_JUDGED = {"alice": 12.0, "bob": 6.0, "carol": 0.0}


def release_of(course, assignment_id=ASSIGNMENT):
    """The release notebook of ``assignment_id`` in the course folder ``course``."""
    return nbformat.read(Path(course) / "release" / assignment_id / f"{assignment_id}.ipynb", as_version=4)


def write_submission(submitted, student, nb, assignment_id=ASSIGNMENT) -> Path:
    """Write ``nb`` as ``student``'s submission where nbgrader collects it: submitted/STUDENT/ID/ID.ipynb."""
    path = Path(submitted) / student / assignment_id / f"{assignment_id}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


def submit_fx(course, submitted, student, double=GOOD_DOUBLE, triple=GOOD_TRIPLE) -> Path:
    """``student``'s submission of the fixture course's assignment: its release with these two answers."""
    return write_submission(submitted, student, with_answers(release_of(course), {"double": double, "triple": triple}))
