"""nbgrader configuration: the repository root is the course directory."""
import os

c = get_config()  # noqa: F821 (provided by nbgrader)

ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "finite"
c.CourseDirectory.root = ROOT
# Only notebooks travel from source/ to release/ and from submissions to grading, plus what
# nbgrader's exchange writes at submit: timestamp.txt (late penalties, `collect --update`) and
# submission_secret.txt (`release_feedback` needs it).
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.py", "*.md",
]
c.CourseDirectory.include = ["*.ipynb", "timestamp.txt", "submission_secret.txt"]

# A writable exchange inside the course (git-ignored), instead of /srv/nbgrader/exchange.
c.Exchange.root = os.path.join(ROOT, ".exchange")

# Shared preamble prepended to every released notebook.
c.IncludeHeaderFooter.header = os.path.join(ROOT, "source", "header.ipynb")

# Restore locked cells a student deleted, not only those they edited.
c.OverwriteCells.add_missing_cells = True

# A cell that runs longer than this is interrupted (the kernel survives).
c.ExecutePreprocessor.timeout = 120

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
