"""nbgrader configuration: the repository root is the course directory.

nbgrader's own commands and the Formgrader grade through the course's sandbox and judge
(autograder/grading/pipeline.py): a submission runs unprivileged and capped, its hidden tests'
observations are compared with the reference run's outside the kernel, and feedback pages are
built from the judged result only.
"""
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

# The exchange: FINITE_EXCHANGE names the folder every student account reaches (README, "A class on
# one server"); unset, this course's git-ignored .exchange, for trying the course on one machine.
# nbgrader's own --Exchange.root= overrides both. Every instructor command names the root it uses and
# checks it (autograder/exchange/root.py). Collect takes only each student's own plain files, timed by
# the exchange (autograder/exchange/collect.py); a student id that is not the OS account's name is
# mapped here, for example: c.Collect.accounts = {"s1234567": "alice"}
c.Exchange.root = os.environ.get("FINITE_EXCHANGE") or os.path.join(ROOT, ".exchange")
c.ExchangeFactory.release_assignment = "autograder.exchange.release.ReleaseAssignment"
c.ExchangeFactory.release_feedback = "autograder.exchange.release.ReleaseFeedback"
c.ExchangeFactory.collect = "autograder.exchange.collect.Collect"

# Shared preamble prepended to every released notebook.
c.IncludeHeaderFooter.header = os.path.join(ROOT, "source", "header.ipynb")

# Restore locked cells a student deleted, not only those they edited.
c.OverwriteCells.add_missing_cells = True

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Autograde (CLI and Formgrader): nbgrader's sanitizing, then the sandbox and the judge in place of
# nbgrader's Execute and SaveAutoGrades.
c.Autograde.sanitize_preprocessors = [
    "autograder.grading.pipeline.NoteSubmission",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "autograder.grading.pipeline.SandboxedExecute",
    "autograder.grading.pipeline.JudgeGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The sandbox's limits per submission (autograder/sandbox/limits.py; `python -m autograder grade --help`
# lists them), for every path that grades: nbgrader autograde, the Formgrader, grade and check.
# For example: c.SandboxLimits.memory_mb = 8192; c.SandboxLimits.cell_timeout = 120

# Generate Feedback (CLI and Formgrader): the judged page, never the autograded notebook.
c.GenerateFeedback.preprocessors = []
c.GenerateFeedback.exporter_class = "autograder.grading.pipeline.FeedbackExporter"

# The Formgrader gives nbgrader's converters its server logger's level, and Jupyter leaves that
# logger at DEBUG (its handlers do the filtering), so the Autograde dialog would show nbgrader's
# debug lines. The server logger keeps the level the server was started with (--debug still works).
from traitlets.config import Application  # noqa: E402

if Application.initialized():
    Application.instance().log.setLevel(Application.instance().log_level)

# nbgrader's own kernels (nbgrader validate, the Formgrader's validation) talk over local sockets, as
# ipykernel advises, so no "Kernel is running over TCP without encryption" warning on every run.
c.KernelManager.transport = "ipc"
# nbgrader validate gives a cell as long as grading does (c.SandboxLimits.cell_timeout, by default 60 s).
c.Execute.timeout = 60
# The Formgrader's Manage Assignments page dumps its configuration when `debug` is on (nbgrader's
# default), and this configuration holds objects JSON cannot write: "Formgrader config is not
# serializable" on every visit. Off, the page shows no dump; --debug on the server still logs.
c.FormgradeExtension.debug = False
