"""Self-study explorers: a value's format and bits (``dtypes``), softmax shifts (``softmax``), loss
scales (``loss_scale``), long sums (``accumulation``) and a real GradScaler run (``gradscaler``).

Each module holds one explorer: the numbers and text it shows, computed without a screen (so they
can be tested and called from a notebook on their own), and the widget that shows them, an
:class:`~fplab.explorers.controls.Explorer` (an ``ipywidgets.VBox``: controls, a text readout and a
figure). Figures are drawn by matplotlib's Agg renderer into an ``ipywidgets.Image``, so plain
JupyterLab with ipywidgets 8 is enough (no ipympl); a slider move redraws only what moved.
``formats`` holds what they share about the floating-point formats (graded notebooks use it: it
imports neither matplotlib nor ipywidgets), ``controls`` and ``plotting`` the widget and drawing
helpers.

During grading (``NBGRADER_EXECUTION`` set) every explorer returns a small ``Label`` saying it
was skipped and does nothing else: matplotlib is not even imported, nothing trains or sums. Bad
arguments (an unknown dtype, a non-finite or out-of-range value) raise ``ValueError`` with a
message that says what was wrong, before that, so they fail during grading too.
"""
