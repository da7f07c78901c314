"""nbgrader's exchange, checked before anything is released (plugged in by nbgrader_config.py).

A root that is not there, or that the instructor cannot write, stops the release with one line
naming it (nbgrader would create a mistyped root, world-writable). The course's own ``.exchange``
(one machine) is created as nbgrader does, and releasing feedback through it warns once: on one
shared OS account nbgrader hands every student every page.
"""
import getpass
import os

from nbgrader.exchange.default import ExchangeReleaseAssignment, ExchangeReleaseFeedback

IN_COURSE = ".exchange"


def in_course(exchange) -> bool:
    """Whether ``exchange`` releases to the course's own .exchange folder."""
    return os.path.realpath(exchange.root) == os.path.realpath(os.path.join(exchange.coursedir.root, IN_COURSE))


def root_problem(exchange) -> str:
    """Why releasing to the exchange's root would fail, in one line; "" when it would not."""
    root = exchange.root
    if not os.path.isdir(root):
        return (f"the exchange root {root} does not exist: create it (README, 'A class on one server') "
                "or point FINITE_EXCHANGE or --Exchange.root at the one your students use")
    if not os.access(root, os.W_OK | os.X_OK):
        return f"the exchange root {root} is not writable by {getpass.getuser()}: fix its owner or mode, or use another"
    return ""


class ReleaseAssignment(ExchangeReleaseAssignment):
    """nbgrader's release_assignment, refusing a missing or unwritable root (except the in-course one,
    which it creates)."""

    def ensure_root(self):
        problem = "" if in_course(self) and not os.path.exists(self.root) else root_problem(self)
        if problem:
            self.fail(problem)
        super().ensure_root()


class ReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release_feedback, refusing a missing or unwritable root, and warning once when the
    in-course exchange is the one in use."""

    def ensure_root(self):
        problem = root_problem(self)
        if problem:
            self.fail(problem)
        super().ensure_root()
        if in_course(self):
            self.log.warning(
                "the exchange is this course's .exchange folder: on one shared OS account every student can fetch "
                "every student's feedback page. Give each student their own account (README, 'A class on one "
                "server') or hand out feedback/<student>/ID/ID.html through your LMS instead.")
