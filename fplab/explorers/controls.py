"""What every explorer shares: the :class:`Explorer` box (controls, readout, figure), input checks,
the skip while nbgrader runs the notebook, and :func:`evidence` (a question's evidence behind a button).
"""
import contextlib
import html
import io
import os
import time

import ipywidgets as widgets

from fplab.explorers.formats import check_dtype_name, check_finite


SKIP_MESSAGE = "{name}: skipped during grading (explorers do not run under nbgrader)"


def grading():
    """True while nbgrader executes the notebook (autograde or validate)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def skip_notice(name):
    return widgets.Label(value=SKIP_MESSAGE.format(name=name))


def in_range(name, value, bounds):
    value = check_finite(name, value)
    if not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"{name} must lie in [{bounds[0]:g}, {bounds[1]:g}], got {value:g}")
    return value


def member(name, value, options):
    if value not in options:
        shown = ", ".join(map(str, options)) if len(options) < 12 else f"{options[0]}, {options[1]}, ..., {options[-1]}"
        raise ValueError(f"{name} must be one of {shown}, got {value!r}")
    return value


def choice(name, value, options):
    check_dtype_name(value)
    return member(name, value, options)


class Explorer(widgets.VBox):
    """What every explorer returns: controls, a text readout and a figure, in a ``VBox``.

    For code and tests: ``controls`` (name -> widget; set ``.value`` to move one), ``readout``
    (the ``HTML`` widget), ``text`` (its plain text, exactly as shown), ``image`` (the
    ``Image`` widget holding the PNG), ``figure`` (the matplotlib ``Figure``), ``result`` (the
    last :mod:`fplab.explore` result) and ``last_update_s`` (seconds the last update took).
    """

    def __init__(self, controls, readout, image, figure, rows=()):
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([row, *rows, readout, image])
        self.controls = controls
        self.readout = readout
        self.image = image
        self.figure = figure
        self.result = None
        self.text = ""
        self.last_update_s = 0.0

    def show(self, result, text, png):
        self.result, self.text = result, text
        self.readout.value = f'<pre class="fplab-readout">{html.escape(text)}</pre>'
        self.image.value = png


def timed(explorer, update):
    """``update`` as a handler that records its duration in ``explorer.last_update_s``."""
    def handler(*_event):
        start = time.perf_counter()
        update()
        explorer.last_update_s = time.perf_counter() - start

    return handler


def on_change(explorer, control, react):
    """Call ``react(change)`` on every change of ``control``'s value, timed into ``last_update_s``."""
    control.observe(lambda change: timed(explorer, lambda: react(change))(), names="value")


def connect(explorer, controls, update):
    """Run ``update`` (timed into ``explorer.last_update_s``) now and on every control change."""
    handler = timed(explorer, update)
    for control in controls.values():
        control.observe(handler, names="value")
    handler()
    return explorer


def evidence(show, label="Show the evidence"):
    """Run ``show`` now, so Run All checks it, but show what it prints only when the button is pressed.

    Returns a button above an empty ``HTML``; the click fills it with the printed text in a
    ``<pre class="fplab-evidence">``. During grading it runs ``show`` and returns a ``Label``.
    """
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        show()
    if grading():
        return skip_notice("evidence")
    # Wide enough for its label: ipywidgets' default button width (148 px) cuts "Show the evidence".
    button = widgets.Button(description=label, icon="eye", layout=widgets.Layout(width="auto", min_width="148px"),
                            tooltip=label)
    shown = widgets.HTML()

    def reveal(_button):
        shown.value = f'<pre class="fplab-evidence">{html.escape(buffer.getvalue())}</pre>'

    button.on_click(reveal)
    return widgets.VBox([button, shown])
