"""The softmax explorer: naive and max-shifted softmax and log-sum-exp side by side in one dtype,
and the widget that shows them.
"""
import math
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import torch

from fplab.explorers.controls import choice, connect, Explorer, grading, in_range, skip_notice
from fplab.explorers.formats import check_finite, check_finite_array, short_number, torch_dtype
from fplab.explorers.plotting import Canvas, new_figure, png_of


DEFAULT_LOGITS = (-1.3, 0.2, 1.1, 2.7)
"""The logit vector the softmax explorer shifts and scales."""


@dataclass(frozen=True)
class SoftmaxView:
    """Naive and max-shifted softmax and log-sum-exp of one logit vector in one dtype."""

    dtype: str
    shift: float
    scale: float
    logits: tuple           # scale * base + shift, as stored in the dtype
    naive_exp_sum: float    # sum of exp(z): inf (overflow) or 0 (underflow) is where naive breaks
    naive_softmax: tuple    # exp(z) / sum(exp(z))
    naive_logsumexp: float  # log(sum(exp(z)))
    shifted_exp_sum: float  # sum of exp(z - max(z)): between 1 and len(z)
    shifted_softmax: tuple  # exp(z - max) / sum(exp(z - max))
    shifted_logsumexp: float  # max + log(sum(exp(z - max)))
    reference_softmax: tuple  # float64 softmax of the stored logits
    reference_logsumexp: float
    emulated: bool          # float8: torch has no float8 arithmetic on the CPU, see softmax_views

    @property
    def naive_finite(self):
        return all(math.isfinite(p) for p in self.naive_softmax) and math.isfinite(self.naive_logsumexp)

    @property
    def shifted_finite(self):
        return all(math.isfinite(p) for p in self.shifted_softmax) and math.isfinite(self.shifted_logsumexp)


def softmax_views(logits=DEFAULT_LOGITS, shift=0.0, scale=1.0, dtype_name="float32"):
    """Softmax and log-sum-exp of ``scale * logits + shift``, naive and max-shifted, in ``dtype_name``.

    The shifted and scaled logits are computed in float64 and stored in the dtype (through
    float32, as torch casts). float32, float16 and bfloat16 then use torch's own operations in
    that dtype. torch has no float8 arithmetic on the CPU, so for float8 each operation runs in
    float32 and its result is rounded to float8 (``emulated`` is True): float8_e4m3fn then
    clamps an overflowing exp to its max instead of giving inf.
    ``ValueError`` for an unknown dtype, non-finite logits, shift or scale, or empty logits.
    """
    dtype = torch_dtype(dtype_name)
    base = check_finite_array("logits", logits)
    shift, scale = check_finite("shift", shift), check_finite("scale", scale)
    emulated = dtype_name.startswith("float8")
    z = torch.from_numpy(scale * base + shift).to(torch.float32).to(dtype)
    if emulated:
        z = z.to(torch.float32)

        def r(t):
            return t.to(dtype).to(torch.float32)
    else:

        def r(t):
            return t

    exp = r(torch.exp(z))
    naive_sum = r(exp.sum())
    naive = r(exp / naive_sum)
    naive_lse = r(torch.log(naive_sum))
    top = z.max()
    shifted_exp = r(torch.exp(r(z - top)))
    shifted_sum = r(shifted_exp.sum())
    shifted = r(shifted_exp / shifted_sum)
    shifted_lse = r(top + r(torch.log(shifted_sum)))
    z64 = z.to(torch.float64)

    def floats(t):
        return tuple(float(v) for v in t.to(torch.float64).tolist())

    return SoftmaxView(
        dtype=dtype_name, shift=shift, scale=scale, logits=floats(z64),
        naive_exp_sum=float(naive_sum.to(torch.float64)), naive_softmax=floats(naive),
        naive_logsumexp=float(naive_lse.to(torch.float64)),
        shifted_exp_sum=float(shifted_sum.to(torch.float64)), shifted_softmax=floats(shifted),
        shifted_logsumexp=float(shifted_lse.to(torch.float64)),
        reference_softmax=floats(torch.softmax(z64, dim=0)),
        reference_logsumexp=float(torch.logsumexp(z64, dim=0)), emulated=emulated,
    )


def softmax_report(view):
    """The text the softmax explorer shows: the stored logits, then naive | shifted | float64 rows."""
    v = view
    width = 14
    arithmetic = ("float32, each result rounded to " + v.dtype + " (torch has no float8 arithmetic on the CPU)"
                  if v.emulated else v.dtype)
    lines = [
        f"logits = {short_number(v.scale, 6)} * base + {short_number(v.shift, 6)}, stored in {v.dtype}: "
        + ", ".join(short_number(x, 6) for x in v.logits),
        f"arithmetic: {arithmetic}",
        f"{'':<{width}}{'naive':<{width}}{'shifted':<{width}}float64",
        f"{'sum of exp':<{width}}{short_number(v.naive_exp_sum, 5):<{width}}{short_number(v.shifted_exp_sum, 5):<{width}}",
    ]
    for i, (a, b, c) in enumerate(zip(v.naive_softmax, v.shifted_softmax, v.reference_softmax)):
        lines.append(f"{f'p[{i}]':<{width}}{short_number(a, 4):<{width}}{short_number(b, 4):<{width}}{short_number(c, 4)}")
    lines.append(f"{'logsumexp':<{width}}{short_number(v.naive_logsumexp, 6):<{width}}"
                 f"{short_number(v.shifted_logsumexp, 6):<{width}}{short_number(v.reference_logsumexp, 6)}")
    lines = [line.rstrip() for line in lines]
    return "\n".join(lines)


SHIFT_RANGE = (-1000.0, 1000.0)   # softmax explorer: common shift


SCALE_RANGE = (0.0, 20.0)         # softmax explorer: scale of the logits


SOFTMAX_DTYPES = ("float32", "float16", "bfloat16")  # float8 softmax would be emulated arithmetic


_TOP = 1.18  # softmax explorer: y limit, and the height of a nan bar


_NAN_COLOUR = "#f6c9bd"


def softmax_explorer(dtype="float32", shift=0.0, scale=1.0, logits=DEFAULT_LOGITS):
    """Sliders for a common shift and a scale of a fixed logit vector, and a dtype.

    Shows naive and max-shifted softmax and log-sum-exp side by side
    (:func:`fplab.softmax_report`), NaN and inf printed as ``nan`` and ``inf``, with a
    bar chart of both next to the float64 reference. ``ValueError`` for an unknown dtype, bad
    logits, or a start value that is not finite or outside its slider's range.
    """
    choice("dtype", dtype, SOFTMAX_DTYPES)
    shift = in_range("shift", shift, SHIFT_RANGE)
    scale = in_range("scale", scale, SCALE_RANGE)
    logits = tuple(check_finite_array("logits", logits).tolist())
    if grading():
        return skip_notice("softmax_explorer")
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

    figure = new_figure(7.8, 3.3)
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
    canvas = Canvas(figure, dynamic)

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, png_of(figure), figure)

    def update():
        shift_value = round(check_finite("shift", controls["shift"].value))
        scale_value = round(check_finite("scale", controls["scale"].value), 1)
        view = softmax_views(logits, shift_value, scale_value, controls["dtype"].value)
        text = softmax_report(view)
        for side, probabilities in enumerate((view.naive_softmax, view.shifted_softmax)):
            for bar, p in zip(bars[side], probabilities):
                finite = bool(np.isfinite(p))
                bar.set_height(p if finite else _TOP)
                bar.set_facecolor(colours[side] if finite else _NAN_COLOUR)
                bar.set_hatch(None if finite else "xx")
                bar.set_edgecolor("none" if finite else "#c00000")
            references[side].set_ydata(view.reference_softmax)
        explorer.show(view, text, canvas.blit())

    return connect(explorer, controls, update)
