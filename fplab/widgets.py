"""Self-study explorers: sliders over dtype ranges, softmax shifts and loss scales.

Each explorer returns an :class:`Explorer` (an ``ipywidgets.VBox``): controls, a text readout
and a figure. The explorer is a thin view: every number and line of text comes from
:mod:`fplab.explore`. Figures are drawn by matplotlib's Agg renderer into an
``ipywidgets.Image``, so plain JupyterLab with ipywidgets 8 is enough (no ipympl). A slider move
redraws only what moved (blitting over a cached background) and re-encodes one PNG.

During grading (``NBGRADER_EXECUTION`` set) every explorer returns a small ``Label`` saying it
was skipped and does nothing else: matplotlib is not even imported. Bad arguments (an unknown
dtype, a non-finite or out-of-range start value) raise ``ValueError`` before any drawing.
"""
import html
import io
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


def _choice(name, value, options):
    explore.check_dtype_name(value)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)} here, got {value!r}")
    return value


class Explorer(widgets.VBox):
    """What every explorer returns: controls, a text readout and a figure, in a ``VBox``.

    For code and tests: ``controls`` (name -> widget; set ``.value`` to move one), ``readout``
    (the ``HTML`` widget), ``text`` (its plain text, exactly as shown), ``image`` (the
    ``Image`` widget holding the PNG), ``figure`` (the matplotlib ``Figure``), ``result`` (the
    last :mod:`fplab.explore` result) and ``last_update_s`` (seconds the last update took).
    """

    def __init__(self, controls, readout, image, figure):
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([row, readout, image])
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

    def __init__(self, figure, dynamic):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure = figure
        self.canvas = FigureCanvasAgg(figure)
        self.dynamic = list(dynamic)
        for artist in self.dynamic:
            artist.set_animated(True)
        self.background = None
        self.backgrounds = {}

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


def _connect(explorer, controls, update):
    """Run ``update`` (timed into ``explorer.last_update_s``) now and on every control change."""
    def handler(_change=None):
        start = time.perf_counter()
        update()
        explorer.last_update_s = time.perf_counter() - start

    for control in controls.values():
        control.observe(handler, names="value")
    handler()
    return explorer


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


def dtype_explorer(dtype="float16", log10_magnitude=-1.0, negative=False):
    """Slider over log10 |x|, a sign and a dtype: what the format stores, the error, the spacing.

    The readout is :func:`fplab.explore.value_report`; the plot shows spacing / |x| for every
    format, the chosen one's rounds-to-zero, subnormal and overflow regions shaded, and the
    current |x| marked. ``ValueError`` for an unknown dtype or a start value that is not finite
    or outside the slider's range.
    """
    if grading():
        return _skipped("dtype_explorer")
    explore.check_dtype_name(dtype)
    log10_magnitude = _in_range("log10_magnitude", log10_magnitude, LOG10_RANGE)
    negative = bool(negative)

    controls = {
        "magnitude": widgets.FloatSlider(
            value=log10_magnitude, min=LOG10_RANGE[0], max=LOG10_RANGE[1], step=0.01,
            description="log10 |x|", readout_format=".2f",
            style={"description_width": "initial"}, layout=widgets.Layout(width="430px")),
        "sign": widgets.ToggleButtons(options=[("+", False), ("-", True)], value=negative,
                                      description="sign", style={"button_width": "36px"}),
        "dtype": widgets.Dropdown(options=list(explore.DTYPE_NAMES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
    }

    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    low, high = 10.0**LOG10_RANGE[0], 10.0**LOG10_RANGE[1]
    figure = _figure(7.8, 3.6)
    figure.subplots_adjust(left=0.09, right=0.69, bottom=0.15, top=0.9)
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
    ax.set_xlabel("|x|")
    ax.set_ylabel("spacing / |x|")
    ax.set_title("relative spacing of each format", fontsize=10)
    magnitudes = _curve_magnitudes(low, high)
    lines = {}
    for name in explore.DTYPE_NAMES:
        (lines[name],) = ax.plot(magnitudes, explore.relative_spacing_curve(name, magnitudes),
                                 color=_DTYPE_COLOURS[name], label=name)
    spans = {kind: ax.axvspan(low, low, color=_REGION_COLOURS[kind], alpha=0.35, lw=0, zorder=0)
             for kind in ("zero", "subnormal", "overflow")}
    legend = ax.legend(handles=list(lines.values()) + list(spans.values()),
                       labels=list(lines) + ["", "", ""], loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=8, frameon=False)
    (marker,) = ax.plot([np.nan], [np.nan], "o", ms=8, mec="black", zorder=5)
    cursor = ax.axvline(1.0, color="black", lw=0.8, ls="--", zorder=4)
    canvas = _Canvas(figure, [cursor, marker])

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure)
    shown = {"dtype": None}

    def restyle(name):
        r = explore.dtype_regions(name)
        for other, line in lines.items():
            line.set_linewidth(1.8 if other == name else 0.8)
            line.set_alpha(1.0 if other == name else 0.5)
            line.set_zorder(3 if other == name else 2)
        top = min(r.overflow_from, r.saturates_above)
        for kind, (a, b) in {"zero": (low, r.zero_up_to), "subnormal": (r.zero_up_to, r.smallest_normal),
                             "overflow": (min(top, high), high)}.items():
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        texts = legend.get_texts()
        texts[-3].set_text(f"{name}: rounds to 0")
        texts[-2].set_text(f"{name}: subnormal")
        texts[-1].set_text(f"{name}: {'saturates' if r.saturating else 'overflows'}")
        marker.set_color(_DTYPE_COLOURS[name])
        marker.set_markeredgecolor("black")

    def update():
        name = controls["dtype"].value
        log10 = explore.check_finite("log10 |x|", controls["magnitude"].value)
        value = explore.signed_magnitude(round(log10, 2), controls["sign"].value)
        description = explore.describe_value(value, name)
        text = explore.value_report(description)
        magnitude = abs(value)
        relative = float(explore.relative_spacing_curve(name, [magnitude])[0])
        cursor.set_xdata([magnitude, magnitude])
        marker.set_data([magnitude], [relative])
        if shown["dtype"] != name:
            restyle(name)
            png = canvas.redraw(key=name)
            shown["dtype"] = name
        else:
            png = canvas.blit()
        explorer.show(description, text, png)

    return _connect(explorer, controls, update)


# ---------------------------------------------------------------------------------------------
# softmax explorer


def softmax_explorer(dtype="float32", shift=0.0, scale=1.0, logits=explore.DEFAULT_LOGITS):
    """Sliders for a common shift and a scale of a fixed logit vector, and a dtype.

    Shows naive and max-shifted softmax and log-sum-exp side by side
    (:func:`fplab.explore.softmax_report`), NaN and inf printed as ``nan`` and ``inf``, with a
    bar chart of both next to the float64 reference. ``ValueError`` for an unknown dtype, bad
    logits, or a start value that is not finite or outside its slider's range.
    """
    if grading():
        return _skipped("softmax_explorer")
    _choice("dtype", dtype, SOFTMAX_DTYPES)
    shift = _in_range("shift", shift, SHIFT_RANGE)
    scale = _in_range("scale", scale, SCALE_RANGE)
    logits = tuple(explore.check_finite_array("logits", logits).tolist())
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

    The magnitudes default to :func:`fplab.explore.sample_gradient_magnitudes` (synthetic,
    seeded). The plot shades where the format loses a scaled gradient to zero, keeps it as a
    subnormal, keeps it in full, or overflows; the readout is
    :func:`fplab.explore.loss_scale_report`. ``ValueError`` for an unknown dtype, bad
    magnitudes, or a start scale that is not finite or outside the slider's range.
    """
    if grading():
        return _skipped("loss_scale_explorer")
    _choice("dtype", dtype, LOSS_SCALE_DTYPES)
    log2_scale = _in_range("log2_scale", log2_scale, LOG2_SCALE_RANGE)
    if log2_scale != int(log2_scale):
        raise ValueError(f"log2_scale must be a whole number here, got {log2_scale:g}")
    if grad_magnitudes is None:
        grad_magnitudes = explore.sample_gradient_magnitudes()
    g = np.abs(explore.check_finite_array("grad_magnitudes", grad_magnitudes, flatten=True))
    g = g[g != 0]
    if g.size == 0:
        raise ValueError("grad_magnitudes holds no non-zero value")

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
    figure = _figure(7.8, 3.4)
    figure.subplots_adjust(left=0.09, right=0.74, bottom=0.15, top=0.88)
    ax = figure.add_subplot()
    counts, edges = np.histogram(log2g, bins=np.arange(low, high + 1))
    ax.set_xlim(low, high)
    ax.set_ylim(0, counts.max() * 1.12)
    ax.set_xlabel("log2 |gradient|  (before scaling)")
    ax.set_ylabel("count per power of two")
    kinds = ("zero", "subnormal", "normal", "overflow")
    spans = {kind: ax.axvspan(low, low, color=_REGION_COLOURS[kind], alpha=0.45, lw=0) for kind in kinds}
    histogram = ax.stairs(counts, edges, fill=True, color="#444444", alpha=0.75, label="gradients (synthetic)")
    title = ax.set_title("", fontsize=10)  # names the dtype; the fractions are in the readout
    legend_labels = ["lost to zero", "subnormal (fewer bits)", "kept in full", "overflow"]
    legend = ax.legend(handles=[histogram] + [spans[k] for k in kinds],
                       labels=["gradients (synthetic)"] + legend_labels,
                       loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    canvas = _Canvas(figure, [spans[k] for k in kinds] + [histogram])

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, _image(figure), figure)
    shown = {"dtype": None}

    def update():
        name = controls["dtype"].value
        view = explore.loss_scale_view(g, explore.check_finite("log2(scale)", controls["log2_scale"].value), name)
        text = explore.loss_scale_report(view)
        bounds = [low, np.log2(view.kept_above), np.log2(view.normal_from), np.log2(view.overflow_from), high]
        bounds = np.clip(bounds, low, high)
        for kind, a, b in zip(kinds, bounds[:-1], bounds[1:]):
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        if shown["dtype"] != name:
            title.set_text(f"what {name} keeps of the scaled gradients")
            legend.get_texts()[-1].set_text("saturates at max" if name in explore.SATURATING else "overflow to inf")
            png = canvas.redraw(key=name)
            shown["dtype"] = name
        else:
            png = canvas.blit()
        explorer.show(view, text, png)

    return _connect(explorer, controls, update)
