"""Self-study explorers: a value's format and bits, softmax shifts, loss scales and a real
GradScaler run, and long sums.

Each explorer returns an :class:`Explorer` (an ``ipywidgets.VBox``): controls, a text readout
and a figure. The explorer is a thin view: every number and line of text comes from
:mod:`fplab.explore`. Figures are drawn by matplotlib's Agg renderer into an
``ipywidgets.Image``, so plain JupyterLab with ipywidgets 8 is enough (no ipympl). A slider move
redraws only what moved (blitting over a cached background) and re-encodes one PNG.

During grading (``NBGRADER_EXECUTION`` set) every explorer returns a small ``Label`` saying it
was skipped and does nothing else: matplotlib is not even imported, nothing trains or sums.
Bad arguments (an unknown dtype, a non-finite or out-of-range start value) raise ``ValueError``
before that, so they fail during grading too. :func:`evidence` keeps a question's evidence
behind a button.
"""
import contextlib
import functools
import html
import io
import math
import os
import time

import ipywidgets as widgets
import numpy as np

from fplab import explore

SKIP_MESSAGE = "{name}: skipped during grading (explorers do not run under nbgrader)"

LOG10_RANGE = (-46.0, 40.0)       # dtype explorer: log10 |x| slider
SHIFT_RANGE = (-1000.0, 1000.0)   # softmax explorer: common shift
SCALE_RANGE = (0.0, 20.0)         # softmax explorer: scale of the logits
LOG2_SCALE_RANGE = (-8, 40)       # loss-scale explorer: log2(loss scale)
SOFTMAX_DTYPES = ("float32", "float16", "bfloat16")  # float8 softmax would be emulated arithmetic
LOSS_SCALE_DTYPES = tuple(n for n in ("float16", "bfloat16", "float8_e5m2", "float8_e4m3fn")
                          if n in explore.DTYPE_NAMES)

_DPI = 90
_TOP = 1.18  # softmax explorer: y limit, and the height of a nan bar
_NAN_COLOUR = "#f6c9bd"
_REGION_COLOURS = {"zero": "#9e9e9e", "subnormal": "#f2c14e", "normal": "#8fd694", "overflow": "#e4572e"}
_DTYPE_COLOURS = dict(zip(explore.DTYPE_NAMES, ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]))


def grading():
    """True while nbgrader executes the notebook (autograde or validate)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def _skipped(name):
    return widgets.Label(value=SKIP_MESSAGE.format(name=name))


def _in_range(name, value, bounds):
    value = explore.check_finite(name, value)
    if not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"{name} must lie in [{bounds[0]:g}, {bounds[1]:g}], got {value:g}")
    return value


def _member(name, value, options):
    if value not in options:
        shown = ", ".join(map(str, options)) if len(options) < 12 else f"{options[0]}, {options[1]}, ..., {options[-1]}"
        raise ValueError(f"{name} must be one of {shown}, got {value!r}")
    return value


def _choice(name, value, options):
    explore.check_dtype_name(value)
    return _member(name, value, options)


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


class _Canvas:
    """A figure drawn off-screen: ``redraw`` when static parts change, ``blit`` for the rest."""

    def __init__(self, figure, dynamic, backgrounds=None):
        """``backgrounds``: a dict shared by figures whose static parts are identical, so that a
        background drawn for one of them serves all (the dtype explorers of one notebook)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure = figure
        self.canvas = FigureCanvasAgg(figure)
        self.dynamic = list(dynamic)
        for artist in self.dynamic:
            artist.set_animated(True)
        self.background = None
        self.backgrounds = {} if backgrounds is None else backgrounds
        self.key = None

    def prerender(self, keys, restyle):
        """Draw and keep the static parts for every key now, so no control change has to later."""
        for key in keys:
            restyle(key)
            self.redraw(key)
        self.key = None

    def frame(self, key, restyle):
        """The PNG for ``key``: ``restyle(key)`` and its background when the key changed, then a blit."""
        if key != self.key:
            restyle(key)
            self.key = key
            return self.redraw(key)
        return self.blit()

    def redraw(self, key=None):
        """Draw the static parts (or reuse those drawn before under ``key``), then the dynamic ones."""
        if key is not None and key in self.backgrounds:
            self.background = self.backgrounds[key]
        else:
            self.canvas.draw()  # everything but the animated (dynamic) artists
            self.background = self.canvas.copy_from_bbox(self.figure.bbox)
            if key is not None:
                self.backgrounds[key] = self.background
        return self.blit()

    def blit(self):
        if self.background is None:
            return self.redraw()
        self.canvas.restore_region(self.background)
        for artist in self.dynamic:
            self.figure.draw_artist(artist)
        return self.png()

    def png(self):
        from PIL import Image  # matplotlib's own dependency

        buffer = io.BytesIO()
        rgb = np.asarray(self.canvas.buffer_rgba())[..., :3]
        Image.fromarray(rgb).save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def _figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI)


def _image(figure):
    width = int(figure.get_figwidth() * _DPI)
    return widgets.Image(format="png", layout=widgets.Layout(width=f"{width}px"))


def _timed(explorer, update):
    """``update`` as a handler that records its duration in ``explorer.last_update_s``."""
    def handler(*_event):
        start = time.perf_counter()
        update()
        explorer.last_update_s = time.perf_counter() - start

    return handler


def _observe(explorer, control, react):
    """Call ``react(change)`` on every change of ``control``'s value, timed into ``last_update_s``."""
    control.observe(lambda change: _timed(explorer, lambda: react(change))(), names="value")


def _connect(explorer, controls, update):
    """Run ``update`` (timed into ``explorer.last_update_s``) now and on every control change."""
    handler = _timed(explorer, update)
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
        return _skipped("evidence")
    # Wide enough for its label: ipywidgets' default button width (148 px) cuts "Show the evidence".
    button = widgets.Button(description=label, icon="eye", layout=widgets.Layout(width="auto", min_width="148px"),
                            tooltip=label)
    shown = widgets.HTML()

    def reveal(_button):
        shown.value = f'<pre class="fplab-evidence">{html.escape(buffer.getvalue())}</pre>'

    button.on_click(reveal)
    return widgets.VBox([button, shown])


# ---------------------------------------------------------------------------------------------
# dtype explorer


def _curve_magnitudes(low, high):
    """A log-spaced grid plus every power of two and the float just below it (sharp sawtooth)."""
    grid = np.geomspace(low, high, 1500)
    powers = np.ldexp(1.0, np.arange(int(np.floor(np.log2(low))), int(np.ceil(np.log2(high))) + 1))
    below = powers * (1 - 2.0**-40)
    m = np.unique(np.concatenate([grid, powers, below]))
    return m[(m >= low) & (m <= high)]


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _power_of_ten(value, _position=None):
    """Tick label 10\u207b\u2074\u2075 for 1e-45, in plain text."""
    exponent = int(round(np.log10(value)))
    return "1" if exponent == 0 else "10" + str(exponent).translate(_SUPERSCRIPT)


_FIELD_COLOURS = {"sign": "#f4b6b6", "exponent": "#b9d0f5", "fraction": "#c7ebc7"}
_DTYPE_BACKGROUNDS = {}  # dtype -> the dtype explorer's static picture: every instance draws the same one


def _bit_buttons(width):
    """One small button per bit, sign first; ``width`` of them (the widest format's bits)."""
    buttons = []
    for index in range(width):
        button = widgets.Button(description="0", layout=widgets.Layout(width="26px", padding="0"))
        button.add_class("fplab-bit")
        buttons.append(button)
    return buttons


def _field(index, exponent_bits):
    return "sign" if index == 0 else ("exponent" if index <= exponent_bits else "fraction")


def _parse_number(text):
    """The float a learner typed (a unicode minus is accepted), or the text itself if it is not one."""
    try:
        return float(text.replace("\u2212", "-"))
    except ValueError:
        return text


def _sliders_for(value):
    """(decade, fraction) of the magnitude sliders that show |value| (rounded to their 0.01 step)."""
    total = round(math.log10(abs(value)), 2)
    decade = math.floor(total)
    return decade, round(total - decade, 2)


def dtype_explorer(dtype="float16", log10_magnitude=-1.0, negative=False):
    """A value x, a format: what the format stores, the error, the spacing, and the bits.

    x is set by two sliders, ``decade`` (whole powers of ten: one arrow key press is a decade)
    and ``fraction`` (log10 |x| - decade, in steps of 0.01), a sign toggle, a box to type x, the
    format's bit buttons (a click flips that bit of the stored value) and buttons to step to the
    next representable number below or above. The readout is
    :func:`fplab.explore.value_report` and :func:`fplab.explore.bits_report`; the plot shows
    spacing / |x| for every format, the chosen one's rounds-to-zero, subnormal and overflow
    regions shaded, and the current |x| marked. ``ValueError`` for an unknown dtype or a start
    value that is not finite or outside the slider's range, also during grading.
    """
    explore.check_dtype_name(dtype)
    log10_magnitude = _in_range("log10_magnitude", log10_magnitude, LOG10_RANGE)
    if grading():
        return _skipped("dtype_explorer")
    decade, fraction = _sliders_for(10.0**log10_magnitude)
    controls = {
        "decade": widgets.IntSlider(value=decade, min=int(LOG10_RANGE[0]), max=int(LOG10_RANGE[1]) - 1,
                                    description="log10 |x|: decade", style={"description_width": "initial"},
                                    layout=widgets.Layout(width="420px")),
        "fraction": widgets.FloatSlider(value=fraction, min=0.0, max=0.99, step=0.01, description="+",
                                        readout_format=".2f", layout=widgets.Layout(width="260px")),
        "sign": widgets.ToggleButtons(options=[("+", False), ("-", True)], value=bool(negative),
                                      description="sign", style={"button_width": "36px"}),
        "dtype": widgets.Dropdown(options=list(explore.DTYPE_NAMES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
        "typed": widgets.Text(value="", placeholder="e.g. 65520 or 1e-7", description="type x",
                              layout=widgets.Layout(width="330px")),  # x follows each keystroke that parses
    }
    steppers = {"down": widgets.Button(description="◀ next below"), "up": widgets.Button(description="next above ▶")}
    bits = _bit_buttons(max(explore.bit_width(n) for n in explore.DTYPE_NAMES))
    bit_row = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
    note = widgets.Label()
    rows = [widgets.HBox([steppers["down"], steppers["up"], note]), bit_row]

    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    low, high = 10.0**LOG10_RANGE[0], 10.0**LOG10_RANGE[1]
    figure = _figure(9.8, 4.4)
    figure.subplots_adjust(left=0.08, right=0.79, bottom=0.13, top=0.92)
    ax = figure.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(1e-8, 4)
    ax.xaxis.set_major_locator(LogLocator(base=10.0, numticks=10))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    for axis in (ax.xaxis, ax.yaxis):  # plain-text labels: matplotlib's mathtext costs ~0.5 s at first use
        axis.set_major_formatter(FuncFormatter(_power_of_ten))
    ax.tick_params(labelsize=10)
    ax.set_xlabel("|x|", fontsize=11)
    ax.set_ylabel("spacing / |x|", fontsize=11)
    ax.set_title("relative spacing of each format (thick: the chosen one)", fontsize=11)
    magnitudes = _curve_magnitudes(low, high)
    lines = {}
    for name in explore.DTYPE_NAMES:
        (lines[name],) = ax.plot(magnitudes, explore.relative_spacing_curve(name, magnitudes),
                                 color=_DTYPE_COLOURS[name], label=name)
    spans = {kind: ax.axvspan(low, low, color=_REGION_COLOURS[kind], alpha=0.2, lw=0, zorder=0)
             for kind in ("zero", "subnormal", "overflow")}
    legend = ax.legend(handles=list(lines.values()) + list(spans.values()),
                       labels=list(lines) + ["rounds to 0", "subnormal", ""], loc="upper left",
                       bbox_to_anchor=(1.01, 1.0), fontsize=10, title=" ", title_fontsize=10, frameon=False)
    (marker,) = ax.plot([np.nan], [np.nan], "o", ms=9, mec="black", zorder=6)
    cursor = ax.axvline(1.0, color="black", lw=0.9, ls="--", zorder=5)
    canvas = _Canvas(figure, [cursor, marker], _DTYPE_BACKGROUNDS)

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure, rows)
    explorer.bits, explorer.steppers, explorer.note = bits, steppers, note
    state = {"value": explore.signed_magnitude(log10_magnitude, negative), "syncing": False}

    def restyle(name):
        r = explore.dtype_regions(name)
        for other, line in lines.items():
            line.set_linewidth(2.6 if other == name else 1.3)
            line.set_alpha(1.0 if other == name else 0.75)
            line.set_zorder(4 if other == name else 2 + other.startswith("float8"))
        top = min(r.overflow_from, r.saturates_above)
        for kind, (a, b) in {"zero": (low, r.zero_up_to), "subnormal": (r.zero_up_to, r.smallest_normal),
                             "overflow": (min(top, high), high)}.items():
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        legend.get_title().set_text(f"formats; shaded\nfor {name}:")
        legend.get_texts()[-1].set_text("saturates" if r.saturating else "overflows")
        marker.set_color(_DTYPE_COLOURS[name])
        marker.set_markeredgecolor("black")
        bit_row.children = bits[:explore.bit_width(name)]

    def show_bits(fields):
        exponent_bits = explore.dtype_regions(fields.dtype).exponent_bits
        for index, (button, bit) in enumerate(zip(bits, fields.bits)):
            field = _field(index, exponent_bits)
            button.description = bit
            button.tooltip = f"bit {index}: {field}; click to flip it"
            button.style.button_color = _FIELD_COLOURS[field]

    def refresh():
        name = controls["dtype"].value
        value = state["value"]
        description = explore.describe_value(value, name)
        fields = explore.bits_of(value, name)
        text = explore.value_report(description) + "\n\n" + explore.bits_report(fields)
        magnitude = abs(value)
        relative = float(explore.relative_spacing_curve(name, [magnitude])[0]) if magnitude else np.nan
        cursor.set_xdata([magnitude or np.nan] * 2)
        marker.set_data([magnitude or np.nan], [relative])
        png = canvas.frame(name, restyle)
        show_bits(fields)
        explorer.show(description, text, png)

    def move_to(value, typed=False):
        """Make ``value`` the explorer's x and put the sliders and the sign where it is; the box keeps
        its text only when x was ``typed`` there."""
        state["value"] = value
        note.value = ""
        state["syncing"] = True
        try:
            if value:
                controls["decade"].value, controls["fraction"].value = _sliders_for(value)
            controls["sign"].value = math.copysign(1.0, value) < 0
            if not typed:
                controls["typed"].value = ""
        finally:
            state["syncing"] = False
        refresh()

    def from_sliders(_change=None):
        decade = explore.check_finite("decade", controls["decade"].value)
        fraction = explore.check_finite("fraction", controls["fraction"].value)
        if state["syncing"] or (state["value"] and (decade, round(fraction, 2)) == _sliders_for(state["value"])):
            return  # move_to put the sliders here (the browser may echo that back): x stays exact
        state["value"] = explore.signed_magnitude(round(decade + fraction, 2), controls["sign"].value)
        note.value = ""
        controls["typed"].value = ""  # the box shows no x but one typed there
        refresh()

    def from_sign(change):
        if not state["syncing"]:
            move_to(math.copysign(state["value"], -1.0 if change["new"] else 1.0))

    def from_text(change):
        typed = change["new"].strip()
        if not typed:
            return
        try:
            value = explore.check_finite("x", _parse_number(typed))
            if value and not low <= abs(value) <= high:
                raise ValueError(f"|x| must lie in [1e{LOG10_RANGE[0]:g}, 1e{LOG10_RANGE[1]:g}] or be 0")
        except ValueError as error:
            note.value = f"could not use {typed!r}: {error}"
            return
        move_to(value, typed=True)

    def to_pattern_value(candidate, what):
        if math.isfinite(candidate):
            move_to(candidate)
        else:
            note.value = f"{what} gives {candidate!r}, which has no place on the slider: x stays"

    def flip(index):
        name = controls["dtype"].value
        flipped = explore.flip_bit(explore.bit_pattern(state["value"], name), index, name)
        to_pattern_value(explore.pattern_value(flipped, name), f"flipping bit {index}")

    def step(direction):
        name = controls["dtype"].value
        to_pattern_value(explore.step_value(state["value"], name, direction), "the next value " +
                         ("above" if direction > 0 else "below"))

    for key in ("decade", "fraction"):
        controls[key].observe(_timed(explorer, from_sliders), names="value")
    _observe(explorer, controls["sign"], from_sign)
    controls["dtype"].observe(_timed(explorer, refresh), names="value")
    _observe(explorer, controls["typed"], from_text)
    for index, button in enumerate(bits):
        button.on_click(_timed(explorer, functools.partial(flip, index)))
    steppers["down"].on_click(_timed(explorer, functools.partial(step, -1)))
    steppers["up"].on_click(_timed(explorer, functools.partial(step, 1)))
    canvas.prerender(explore.DTYPE_NAMES, restyle)
    refresh()
    return explorer


# ---------------------------------------------------------------------------------------------
# softmax explorer


def softmax_explorer(dtype="float32", shift=0.0, scale=1.0, logits=explore.DEFAULT_LOGITS):
    """Sliders for a common shift and a scale of a fixed logit vector, and a dtype.

    Shows naive and max-shifted softmax and log-sum-exp side by side
    (:func:`fplab.explore.softmax_report`), NaN and inf printed as ``nan`` and ``inf``, with a
    bar chart of both next to the float64 reference. ``ValueError`` for an unknown dtype, bad
    logits, or a start value that is not finite or outside its slider's range.
    """
    _choice("dtype", dtype, SOFTMAX_DTYPES)
    shift = _in_range("shift", shift, SHIFT_RANGE)
    scale = _in_range("scale", scale, SCALE_RANGE)
    logits = tuple(explore.check_finite_array("logits", logits).tolist())
    if grading():
        return _skipped("softmax_explorer")
    n = len(logits)

    controls = {
        "shift": widgets.FloatSlider(value=shift, min=SHIFT_RANGE[0], max=SHIFT_RANGE[1], step=1.0,
                                     description="shift", readout_format=".0f",
                                     layout=widgets.Layout(width="430px")),
        "scale": widgets.FloatSlider(value=scale, min=SCALE_RANGE[0], max=SCALE_RANGE[1], step=0.1,
                                     description="scale", readout_format=".1f",
                                     layout=widgets.Layout(width="330px")),
        "dtype": widgets.Dropdown(options=list(SOFTMAX_DTYPES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
    }

    figure = _figure(7.8, 3.3)
    figure.subplots_adjust(left=0.08, right=0.98, bottom=0.2, top=0.88, wspace=0.08)
    axes = figure.subplots(1, 2, sharey=True)
    from matplotlib.patches import Patch

    dynamic, bars, references = [], [], []
    colours = ("#e4572e", "#1f77b4")
    positions = np.arange(n)
    for ax, colour in zip(axes, colours):
        ax.set_ylim(0, _TOP)
        ax.set_xticks(positions, [f"p[{i}]" for i in range(n)])
        ax.set_xlim(-0.6, n - 0.4)
        container = ax.bar(positions, np.zeros(n), width=0.6, color=colour, alpha=0.85)
        bars.append(list(container))
        (reference,) = ax.plot(positions, np.zeros(n), "_", color="black", ms=26, mew=2, label="float64")
        references.append(reference)
        dynamic += bars[-1] + [reference]
    axes[0].set_ylabel("probability")
    axes[0].set_title("naive: exp(z) / sum(exp(z))", fontsize=10)
    axes[1].set_title("shifted: exp(z - max) / sum(exp(z - max))", fontsize=10)
    nan_patch = Patch(facecolor=_NAN_COLOUR, hatch="xx", edgecolor="#c00000", label="nan (hatched, full height)")
    figure.legend(handles=[references[1], nan_patch], loc="lower center", ncols=2, fontsize=8, frameon=False)
    canvas = _Canvas(figure, dynamic)

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure)

    def update():
        shift_value = round(explore.check_finite("shift", controls["shift"].value))
        scale_value = round(explore.check_finite("scale", controls["scale"].value), 1)
        view = explore.softmax_views(logits, shift_value, scale_value, controls["dtype"].value)
        text = explore.softmax_report(view)
        for side, probabilities in enumerate((view.naive_softmax, view.shifted_softmax)):
            for bar, p in zip(bars[side], probabilities):
                finite = bool(np.isfinite(p))
                bar.set_height(p if finite else _TOP)
                bar.set_facecolor(colours[side] if finite else _NAN_COLOUR)
                bar.set_hatch(None if finite else "xx")
                bar.set_edgecolor("none" if finite else "#c00000")
            references[side].set_ydata(view.reference_softmax)
        explorer.show(view, text, canvas.blit())

    return _connect(explorer, controls, update)


# ---------------------------------------------------------------------------------------------
# loss-scale explorer


def loss_scale_explorer(log2_scale=0, dtype="float16", grad_magnitudes=None):
    """A slider over log2(loss scale) on a histogram of gradient magnitudes, and a dtype.

    The magnitudes default to :func:`fplab.explore.model_gradients` (a small model's real
    float32 gradients after 300 training steps; the count axis is logarithmic so that a single
    value shows). The plot shades where the format loses a scaled gradient to zero, keeps it as a
    subnormal, keeps it in full, or overflows; the readout is
    :func:`fplab.explore.loss_scale_report`. ``ValueError`` for an unknown dtype, bad
    magnitudes, or a start scale that is not finite or outside the slider's range.
    """
    _choice("dtype", dtype, LOSS_SCALE_DTYPES)
    log2_scale = _in_range("log2_scale", log2_scale, LOG2_SCALE_RANGE)
    if log2_scale != int(log2_scale):
        raise ValueError(f"log2_scale must be a whole number here, got {log2_scale:g}")
    if grad_magnitudes is not None:
        grad_magnitudes = explore.check_finite_array("grad_magnitudes", grad_magnitudes, flatten=True)
        if not grad_magnitudes.any():
            raise ValueError("grad_magnitudes holds no non-zero value")
    if grading():
        return _skipped("loss_scale_explorer")
    custom = grad_magnitudes is not None
    if not custom:
        grad_magnitudes = explore.model_gradients()
    g = np.abs(grad_magnitudes)
    g = g[g != 0]

    controls = {
        "log2_scale": widgets.IntSlider(value=int(log2_scale), min=LOG2_SCALE_RANGE[0],
                                        max=LOG2_SCALE_RANGE[1], step=1, description="log2(scale)",
                                        style={"description_width": "initial"},
                                        layout=widgets.Layout(width="430px")),
        "dtype": widgets.Dropdown(options=list(LOSS_SCALE_DTYPES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
    }

    log2g = np.log2(g)
    low = np.floor(min(log2g.min(), -56)) - 1
    high = np.ceil(max(log2g.max(), 8)) + 1
    figure = _figure(9.8, 4.0)
    figure.subplots_adjust(left=0.08, right=0.77, bottom=0.14, top=0.9)
    ax = figure.add_subplot()
    counts, edges = np.histogram(log2g, bins=np.arange(low, high + 1))
    ax.set_xlim(low, high)
    ax.set_yscale("log")  # a count of 1 stays visible next to thousands
    ax.set_ylim(_BASELINE * 0.9, counts.max() * 2)
    ax.set_xlabel("log2 |gradient|  (before scaling)", fontsize=10)
    ax.set_ylabel("count per power of two", fontsize=10)
    kinds = ("zero", "subnormal", "normal", "overflow")
    spans = {kind: ax.axvspan(low, low, color=_REGION_COLOURS[kind], alpha=0.45, lw=0) for kind in kinds}
    label = "gradients" if custom else "gradients (toy model,\nfloat32, step 299)"
    histogram = ax.stairs(np.where(counts > 0, counts, np.nan), edges, baseline=_BASELINE, fill=True,
                          color="#444444", alpha=0.75)
    title = ax.set_title("", fontsize=10)  # names the dtype; the fractions are in the readout
    legend_labels = ["lost to zero", "subnormal (fewer bits)", "kept in full", "overflow"]
    legend = ax.legend(handles=[histogram] + [spans[k] for k in kinds],
                       labels=[label] + legend_labels,
                       loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9.5, frameon=False)
    canvas = _Canvas(figure, [spans[k] for k in kinds] + [histogram])

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure)

    def restyle(name):
        title.set_text(f"what {name} keeps of the scaled gradients")
        legend.get_texts()[-1].set_text("saturates at max" if name in explore.SATURATING else "overflow to inf")

    def update():
        name = controls["dtype"].value
        view = explore.loss_scale_view(g, explore.check_finite("log2(scale)", controls["log2_scale"].value), name)
        text = explore.loss_scale_report(view)
        bounds = [low, np.log2(view.kept_above), np.log2(view.normal_from), np.log2(view.overflow_from), high]
        bounds = np.clip(bounds, low, high)
        for kind, a, b in zip(kinds, bounds[:-1], bounds[1:]):
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        explorer.show(view, text, canvas.frame(name, restyle))

    canvas.prerender(LOSS_SCALE_DTYPES, restyle)
    return _connect(explorer, controls, update)


# ---------------------------------------------------------------------------------------------
# accumulation explorer

_METHOD_COLOURS = {"naive": "#e4572e", "pairwise": "#1f77b4", "kahan": "#2ca02c", "stochastic": "#9467bd"}
# pairwise and kahan often give the same totals: pairwise is a wide pale band drawn first, so the
# thin kahan line on top of it leaves it visible on both sides
_METHOD_STYLES = {"pairwise": dict(lw=5.0, alpha=0.45, solid_capstyle="butt")}
_ERROR_FLOOR = 1e-9  # a relative error of exactly 0 is drawn here on the log axis


def accumulation_explorer(data=explore.ACCUMULATION_DATA[0], dtype="float16", n=1000):
    """Add up to 10^4 terms four ways in one format: the totals and the relative error against n.

    Controls: the data (a repeated small term or uniform random numbers), the dtype and n (a
    slider over the checkpoints of :func:`fplab.explore.accumulate`). Left: the running totals
    and the exact sum; right: each method's relative error with the n·u and √n·u guides. The
    readout is :func:`fplab.explore.accumulation_report`. Every (data, dtype) is computed when
    the explorer is built, so no control recomputes anything. ``ValueError`` for an unknown
    data set or dtype, or an n that is not a checkpoint, also during grading.
    """
    _choice("dtype", dtype, explore.ACCUMULATION_DTYPES)
    _member("data", data, explore.ACCUMULATION_DATA)
    checkpoints = explore.accumulation_checkpoints().tolist()
    _member("n", n, checkpoints)
    if grading():
        return _skipped("accumulation_explorer")
    runs = {(d, t): explore.accumulate(d, t) for d in explore.ACCUMULATION_DATA for t in explore.ACCUMULATION_DTYPES}
    controls = {
        "data": widgets.Dropdown(options=list(explore.ACCUMULATION_DATA), value=data, description="data"),
        "dtype": widgets.Dropdown(options=list(explore.ACCUMULATION_DTYPES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
        "n": widgets.SelectionSlider(options=checkpoints, value=n, description="n terms",
                                     layout=widgets.Layout(width="520px")),
    }
    figure = _figure(9.8, 4.0)
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.26, top=0.9, wspace=0.25)
    totals_ax, errors_ax = figure.subplots(1, 2)
    for ax in (totals_ax, errors_ax):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1, explore.ACCUMULATION_N)
        ax.set_xlabel("n (terms added)", fontsize=10)
    totals_ax.set_ylim(1e-4, 1e4)
    errors_ax.set_ylim(_ERROR_FLOOR / 2, 1e2)
    totals_ax.set_title("running total (dashed black: exact)", fontsize=10)
    errors_ax.set_title(f"relative error (0 drawn at {_ERROR_FLOOR:g})", fontsize=10)
    dynamic = {}
    for method, colour in _METHOD_COLOURS.items():
        style = dict(color=colour, lw=1.6) | _METHOD_STYLES.get(method, {})
        dynamic[f"total {method}"] = totals_ax.plot([], [], **style)[0]
        dynamic[method] = errors_ax.plot([], [], label=method, **style)[0]
    # The exact sum last, so it is drawn over the methods that match it: dashed black, white gaps.
    dynamic["exact"] = totals_ax.plot([], [], color="black", ls=(0, (4, 3)), lw=1.8, label="exact",
                                      gapcolor="white")[0]
    dynamic["n·u"] = errors_ax.plot([], [], color="black", ls="--", lw=1, label="n·u")[0]
    dynamic["√n·u"] = errors_ax.plot([], [], color="black", ls=":", lw=1.2, label="√n·u")[0]
    cursors = [ax.axvline(1, color="black", lw=0.8) for ax in (totals_ax, errors_ax)]
    figure.legend(handles=[dynamic[m] for m in _METHOD_COLOURS] + [dynamic[k] for k in ("exact", "n·u", "√n·u")],
                  loc="lower center", ncols=7, fontsize=10, frameon=False)
    canvas = _Canvas(figure, list(dynamic.values()) + cursors)  # drawn in this order: exact over the totals
    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure)

    def update():
        run = runs[controls["data"].value, controls["dtype"].value]
        k = controls["n"].value
        dynamic["exact"].set_data(run.ns, run.exact)
        for method in explore.ACCUMULATION_METHODS:
            dynamic[f"total {method}"].set_data(run.ns, run.totals[method])
            dynamic[method].set_data(run.ns, np.maximum(run.relative_error(method), _ERROR_FLOOR))
        dynamic["n·u"].set_data(run.ns, run.ns * run.unit_roundoff)
        dynamic["√n·u"].set_data(run.ns, np.sqrt(run.ns) * run.unit_roundoff)
        for cursor in cursors:
            cursor.set_xdata([k, k])
        explorer.show(run, explore.accumulation_report(run, k), canvas.blit())

    return _connect(explorer, controls, update)


# ---------------------------------------------------------------------------------------------
# GradScaler explorer

GROWTH_INTERVALS = (1, 2, 5, 10, 20, 50, 100, 2000)
BACKOFF_FACTORS = (0.125, 0.25, 0.5, 0.75, 0.9)
LOG2_INIT_RANGE = (0, 30)
_LAYER_COLOURS = ("#4c72b0", "#55a868", "#c44e52", "#8172b2")
_BASELINE = 0.7  # histogram bars start here on the log count axis, so a count of 1 shows


def gradscaler_explorer(log2_init_scale=16, growth_interval=20, backoff_factor=0.5, step=0):
    """A real ``torch.amp.GradScaler("cpu")`` run on a small model in float16 autocast, step by step.

    Knobs: log2(init_scale), growth_interval and backoff_factor; each change retrains the model
    (:func:`fplab.explore.gradscaler_run`, under a second here; the status line prints the
    time). Top: the scale at every step, skipped steps marked. Bottom, under the step slider:
    that step's gradients per layer (|gradient| / scale, log2 axis, log count axis) over the band
    float16 keeps at that step's scale. Moving the step slider recomputes nothing. ``ValueError``
    for a knob value off its slider or a step out of range, also during grading.
    """
    log2_init_scale = _in_range("log2_init_scale", log2_init_scale, LOG2_INIT_RANGE)
    if log2_init_scale != int(log2_init_scale):
        raise ValueError(f"log2_init_scale must be a whole number, got {log2_init_scale:g}")
    _member("growth_interval", growth_interval, GROWTH_INTERVALS)
    _member("backoff_factor", backoff_factor, BACKOFF_FACTORS)
    _in_range("step", step, (0, explore.SCALER_STEPS - 1))
    if grading():
        return _skipped("gradscaler_explorer")
    knob = {"continuous_update": False, "style": {"description_width": "initial"}}
    controls = {
        "log2_init_scale": widgets.IntSlider(value=int(log2_init_scale), min=LOG2_INIT_RANGE[0],
                                             max=LOG2_INIT_RANGE[1], description="log2(init_scale)", **knob),
        "growth_interval": widgets.SelectionSlider(options=GROWTH_INTERVALS, value=growth_interval,
                                                   description="growth_interval", **knob),
        "backoff_factor": widgets.SelectionSlider(options=BACKOFF_FACTORS, value=backoff_factor,
                                                  description="backoff_factor", **knob),
        "step": widgets.IntSlider(value=int(step), min=0, max=explore.SCALER_STEPS - 1, description="step",
                                  layout=widgets.Layout(width="640px")),
    }
    status = widgets.Label()
    figure = _figure(9.8, 5.6)
    figure.subplots_adjust(left=0.08, right=0.78, bottom=0.1, top=0.95, hspace=0.45)
    scale_ax, hist_ax = figure.subplots(2, 1)
    scale_ax.set_xlim(0, explore.SCALER_STEPS - 1)
    scale_ax.set_ylim(LOG2_INIT_RANGE[0] - 1, 40)
    scale_ax.set_xlabel("training step", fontsize=10)
    scale_ax.set_ylabel("log2(scale)", fontsize=10)
    scale_ax.set_title("the loss scale GradScaler used at each step", fontsize=10)
    (scale_line,) = scale_ax.step([], [], where="post", color="#1f77b4", lw=1.6, label="scale")
    (skip_marks,) = scale_ax.plot([], [], "x", color="#c00000", ms=8, mew=2, label="skipped step")
    (step_dot,) = scale_ax.plot([np.nan], [np.nan], "o", color="black", ms=7, label="this step")
    scale_ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    edges = explore.SCALER_BINS
    hist_ax.set_xlim(edges[0], edges[-1])
    hist_ax.set_yscale("log")
    hist_ax.set_ylim(_BASELINE * 0.9, 2000)
    hist_ax.set_xlabel("log2 |gradient|  (unscaled: |float16 gradient| / scale)", fontsize=10)
    hist_ax.set_ylabel("count per power of two", fontsize=10)
    kinds = ("zero", "subnormal", "normal", "overflow")
    spans = {kind: hist_ax.axvspan(0, 0, color=_REGION_COLOURS[kind], alpha=0.35, lw=0) for kind in kinds}
    stairs = [hist_ax.stairs(np.full(len(edges) - 1, _BASELINE), edges, baseline=_BASELINE, fill=True,
                             color=colour, label=name) for name, colour in zip(explore.SCALER_LAYERS, _LAYER_COLOURS)]
    hist_ax.set_title("the chosen step's gradients per layer, over what float16 keeps at its scale", fontsize=10)
    lost_text = hist_ax.text(edges[-1] - 1, 600, "", ha="right", color="#a00000", fontsize=11, weight="bold")
    hist_ax.legend(handles=stairs + [spans[k] for k in kinds],
                   labels=list(explore.SCALER_LAYERS) + ["float16: lost to zero", "subnormal", "kept in full",
                                                         "overflow"],
                   loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    canvas = _Canvas(figure, [step_dot, lost_text, *spans.values(), *stairs])
    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure, [status])
    regions = explore.dtype_regions("float16")
    current = {}

    def retrain():
        # The busy cue: sent to the browser now, before the retrain blocks the kernel.
        status.value = f"⏳ retraining: {explore.SCALER_STEPS} steps of GradScaler…"
        explorer.add_class("fplab-busy")
        start = time.perf_counter()
        run = explore.gradscaler_run(2.0 ** controls["log2_init_scale"].value, controls["growth_interval"].value,
                                     controls["backoff_factor"].value)
        status.value = (f"this run: {explore.SCALER_STEPS} steps, computed in {time.perf_counter() - start:.2f} s "
                        "(a knob change retrains; the step slider only reads the run)")
        steps = np.arange(explore.SCALER_STEPS)
        log2_scales = np.log2(run.scales)
        scale_line.set_data(steps, log2_scales)
        skip_marks.set_data(steps[run.skipped], log2_scales[run.skipped])
        current["run"] = run
        canvas.background = None  # the scale plot changed: the next blit redraws everything
        explorer.remove_class("fplab-busy")

    def show_step():
        run, k = current["run"], controls["step"].value
        scale = run.scales[k]
        step_dot.set_data([k], [math.log2(scale)])
        top = _BASELINE + np.zeros(len(edges) - 1)
        for layer, stair in enumerate(stairs):
            bottom, top = top, top + run.counts[k, layer]
            stair.set_data(top, edges, baseline=bottom)
        bounds = np.clip([edges[0], math.log2(regions.zero_up_to / scale), math.log2(regions.smallest_normal / scale),
                          math.log2(regions.overflow_from / scale), edges[-1]], edges[0], edges[-1])
        for kind, a, b in zip(kinds, bounds[:-1], bounds[1:]):
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        nonfinite = int(run.classes[k, :, 3].sum())
        lost_text.set_text(f"+ {nonfinite} inf/nan\n(not on the axis)" if nonfinite else "")
        return canvas.blit()

    def update(change=None):
        if change is None or change["owner"] is not controls["step"]:
            retrain()
        png = show_step()
        run = current["run"]
        text = explore.scaler_run_report(run) + "\n\n" + explore.scaler_step_report(run, controls["step"].value)
        explorer.show(run, text, png)

    for control in controls.values():
        _observe(explorer, control, update)
    _timed(explorer, update)()
    return explorer
