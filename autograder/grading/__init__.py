"""Grading, on the trusted side, in steps: admit, execute, conclude, record, render.

Two front ends are thin adapters over the same steps: nbgrader's preprocessors (``pipeline.py``:
``nbgrader autograde``, the Formgrader's buttons, Generate Feedback) and the parallel batch
(``batch.py``: ``python -m autograder grade``, ``check``). So every path gives the same scores,
the same flags in the Formgrader's Manual Grading and the same page, manual grades and the
instructor's comments included.

* admit (``admit.py``): read the submission, run the course's configured sanitizers (tampering
  noted, locked cells restored);
* execute (:func:`autograder.sandbox.run.run_in_sandbox`): the only step that runs student code;
* conclude (``verdict.py``): each test cell's observations compared with the reference run's
  (``observations.py``, ``reference.py``), outside the kernel, with the method rules
  (:mod:`fplab.rules`): one :class:`~autograder.grading.verdict.Result`;
* record (``gradebook.py``): the judged scores into nbgrader's gradebook as ``auto_score``, the
  autograded notebook the Formgrader shows (``autograded.py``), the :class:`~autograder.grading.gradebook.Final`
  grades read back (a manual score overrides);
* render (``feedback.py``): the feedback page from the judged record and the final grades.

The batch adds finding the students (``discovery.py``), running them on workers
(``scheduling.py``) and writing what a run leaves (``publishing.py``).
"""
