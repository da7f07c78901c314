"""nbgrader's exchange as the course uses it (plugged in by nbgrader_config.py): what the
instructor's commands accept from a folder every student can write.

* ``root``: the exchange's root, named by every command and checked (exists, writable, sticky);
* ``release``: release_assignment and release_feedback with that check;
* ``inbound``: one submission folder read without following anything, the student's own plain files only;
* ``collect``: nbgrader's collect over ``inbound``, timed by the exchange, never stopped by one student;
* ``records``: what collect saw of each student, for grading.
"""
