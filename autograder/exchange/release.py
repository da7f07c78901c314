"""nbgrader's release_assignment and release_feedback with the course's checked root."""
import logging
import os
import stat

from nbgrader.exchange.default import ExchangeReleaseAssignment, ExchangeReleaseFeedback

from autograder.exchange.root import CheckedRoot, in_course


class ReleaseAssignment(CheckedRoot, ExchangeReleaseAssignment):
    """nbgrader's release_assignment; the root is checked, never chmod-ed to 0777 (nbgrader's own
    ``ensure_root`` would, dropping the sticky bit), and the inbound folder gets the sticky bit, so a
    student who learns another's submission folder name still cannot rename or delete it."""

    def init_dest(self):
        super().init_dest()
        mode = os.stat(self.inbound_path).st_mode
        if not mode & stat.S_ISVTX:
            os.chmod(self.inbound_path, stat.S_IMODE(mode) | stat.S_ISVTX)


class ReleaseFeedback(CheckedRoot, ExchangeReleaseFeedback):
    """nbgrader's release_feedback, with the checked root; through the in-course exchange it warns
    that every student of one shared account can fetch every page."""

    def copy_files(self):
        named = ReleasedPageName()
        self.log.addFilter(named)
        try:
            super().copy_files()
        finally:
            self.log.removeFilter(named)

    def ensure_root(self):
        super().ensure_root()
        if in_course(self):
            self.log.warning(
                "on one shared OS account every student can fetch every student's feedback page. Give each student "
                "their own account (README, 'A class on one server') or hand out feedback/<student>/ID/ID.html "
                "through your LMS instead.")


class ReleasedPageName(logging.Filter):
    """nbgrader logs "Feedback released to: <hash>-tmp.html", the temporary copy it has just renamed
    to <hash>.html: the line names the page the student fetches instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        line = record.getMessage()
        if line.startswith("Feedback released to: ") and line.endswith("-tmp.html"):
            record.msg, record.args = line.removesuffix("-tmp.html") + ".html", ()
        return True
