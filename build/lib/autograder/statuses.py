"""Every grading status, what it tells a student, and the defaults every command shares."""
import os
from enum import Enum


class Status(str, Enum):
    """How grading one submission ended (the ``status`` column of grades.csv)."""

    GRADED = "graded"
    UNREADABLE = "unreadable"
    TIMEOUT = "timeout"
    KERNEL_DIED = "kernel_died"
    RESOURCE_LIMIT = "resource_limit"
    MISSING = "missing"
    INVALID_ID = "invalid_id"
    REFUSED = "refused"
    REVIEW = "review"
    GRADER_ERROR = "grader_error"

    __str__ = str.__str__  # a status prints as its value everywhere (f-strings, templates, the CSV)
    __format__ = str.__format__


STATUS_TEXT = {status.value: text for status, text in {
    Status.GRADED: "Every test cell ran and was judged.",
    Status.UNREADABLE: "Your file could not be read as a notebook, so nothing in it could be graded.",
    Status.TIMEOUT: "A cell of your notebook ran over the time limit (see the notes for which); "
                    "tests that had not run score 0.",
    Status.KERNEL_DIED: "Your notebook's kernel died during grading (for example a crash or exit call).",
    Status.RESOURCE_LIMIT: "Your notebook went over a resource limit during grading (see the notes).",
    Status.MISSING: "No notebook was found in your submission.",
    Status.INVALID_ID: "Your submission's folder name is not a valid student id, so it was not graded.",
    Status.REFUSED: "Your submission was not taken: it held a link, a special file or a file that is not yours, "
                    "or was too large (see the notes). Nothing of it was graded.",
    Status.REVIEW: "Your notebook holds text from the instructor's own copy of the assignment, so it was not graded "
                   "automatically: your instructor will grade it by hand.",
    Status.GRADER_ERROR: "The grader failed on your submission; your instructor has been told and will regrade it.",
}.items()}


def default_workers() -> int:
    """Parallel grading runs: one per core."""
    return max(1, os.cpu_count() or 1)
