"""The learner's ``nbgrader submit`` (set in lab/learner/nbgrader_config.py): nbgrader's own,
except that the submission it leaves in the exchange is writable by the student alone.

nbgrader's submit makes the submission folder 0777 so that an instructor without root can delete
it later. Then any account that learns the folder's name could change it. Here the folder is 0755
and its files 0644 (nbgrader's): readable by the instructor, writable by its owner only. The
course's collect flags a submission that others could have written.
"""
import os

from nbgrader.exchange.default import ExchangeSubmit


class Submit(ExchangeSubmit):
    """nbgrader's submit, leaving the submission folder 0755."""

    def copy_files(self):
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), 0o755)
