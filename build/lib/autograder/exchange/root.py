"""The exchange's root, checked and named by every exchange command the instructor runs.

A root that is not there, that the instructor cannot write, or that other accounts can write
without the sticky bit (any of them could then rename or delete the course's folder in it) stops
the command with one line naming it and the fix. The course's own ``.exchange`` (one machine, one
account) is created 0755 and never made world-writable, as nbgrader's release would make it.
"""
import getpass
import os
import stat

IN_COURSE = ".exchange"


def in_course(exchange) -> bool:
    """Whether ``exchange`` uses the course's own .exchange folder."""
    return os.path.realpath(exchange.root) == os.path.realpath(os.path.join(exchange.coursedir.root, IN_COURSE))


def root_problem(exchange) -> str:
    """Why the exchange's root is not fit to use, in one line; "" when it is."""
    root = exchange.root
    if not os.path.isdir(root):
        return (f"the exchange root {root} does not exist: create it (README, 'A class on one server') "
                "or point FINITE_EXCHANGE or --Exchange.root at the one your students use")
    if not os.access(root, os.W_OK | os.X_OK):
        return f"the exchange root {root} is not writable by {getpass.getuser()}: fix its owner or mode, or use another"
    mode = os.stat(root).st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH) and not mode & stat.S_ISVTX:
        fix = f"chmod 755 {root}" if in_course(exchange) else f"chmod 1777 {root}"
        return (f"the exchange root {root} can be written by other accounts and has no sticky bit, so any of them "
                f"could rename or delete the course's folder in it: run `{fix}` (README, 'A class on one server')")
    return ""


class CheckedRoot:
    """``ensure_root`` for an exchange command of the instructor's (mixed into nbgrader's classes):
    it says which root it uses, and stops on :func:`root_problem`."""

    def ensure_root(self):
        if in_course(self):
            if not os.path.exists(self.root):
                os.makedirs(self.root, mode=0o755)
            self.log.warning("exchange: %s, this course's own folder: the one-machine exchange, for trying the course "
                             "on one account. For a class, set FINITE_EXCHANGE (README, 'A class on one server').",
                             self.root)
        else:
            self.log.info("exchange: %s", self.root)
        problem = root_problem(self)
        if problem:
            self.fail(problem)
