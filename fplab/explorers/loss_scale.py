"""The loss-scale explorer: which scaled gradients a format loses to zero or to overflow, and the
widget that shows them.
"""
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from fplab.explorers.controls import choice, connect, Explorer, grading, in_range, skip_notice
from fplab.explorers.formats import (
    cast, check_finite, check_finite_array, DTYPE_NAMES, dtype_regions, SATURATING, short_number,
)
from fplab.explorers.gradscaler import model_gradients
from fplab.explorers.plotting import BASELINE, Canvas, new_figure, png_of, REGION_COLOURS


@dataclass(frozen=True)
class LossScaleView:
    """What ``dtype`` keeps of gradients multiplied by a loss scale 2^log2_scale."""

    dtype: str
    log2_scale: float
    scale: float
    count: int                  # non-zero magnitudes (zeros cannot be lost)
    underflow_fraction: float   # of the non-zero ones: scaled value rounds to 0
    subnormal_fraction: float   # kept, but as a subnormal (fewer significant bits)
    overflow_fraction: float    # become inf (saturate at max for float8_e4m3fn)
    normal_fraction: float      # kept at full precision
    kept_above: float           # band in unscaled units: magnitudes above this survive
    normal_from: float          # from here they are normal
    overflow_from: float        # from here they overflow (or saturate)


def loss_scale_view(grad_magnitudes, log2_scale, dtype_name="float16"):
    """Scale gradient magnitudes by 2^log2_scale, store them in ``dtype_name``, count the losses.

    Fractions are of the non-zero magnitudes (sign ignored); the product is computed in float64
    and cast through float32 as torch does. The band (``kept_above``, ``normal_from``,
    ``overflow_from``) is the format's range divided by the scale, in the gradients' own units.
    ``ValueError`` for an unknown dtype, a non-finite scale or magnitudes, or an empty input.
    """
    regions = dtype_regions(dtype_name)
    g = np.abs(check_finite_array("grad_magnitudes", grad_magnitudes, flatten=True))
    log2_scale = check_finite("log2_scale", log2_scale)
    if abs(log2_scale) > 1000:
        raise ValueError(f"log2_scale must lie in [-1000, 1000], got {log2_scale:g}")
    scale = 2.0**log2_scale
    g = g[g != 0]
    if g.size == 0:
        raise ValueError("grad_magnitudes holds no non-zero value")
    with np.errstate(over="ignore"):
        scaled = g * scale
    stored = cast(scaled, dtype_name)
    as32 = cast(scaled, "float32")
    if regions.saturating:
        overflow = as32 > regions.saturates_above
        top = regions.saturates_above
    else:
        overflow = np.isinf(stored)
        top = regions.overflow_from
    underflow = stored == 0
    subnormal = ~underflow & ~overflow & (stored < regions.smallest_normal)
    normal = ~underflow & ~overflow & ~subnormal
    n = g.size
    return LossScaleView(
        dtype=dtype_name, log2_scale=log2_scale, scale=scale, count=int(n),
        underflow_fraction=float(underflow.sum() / n), subnormal_fraction=float(subnormal.sum() / n),
        overflow_fraction=float(overflow.sum() / n), normal_fraction=float(normal.sum() / n),
        kept_above=regions.zero_up_to / scale, normal_from=regions.smallest_normal / scale,
        overflow_from=top / scale,
    )


def _scale_text(log2_scale):
    exponent = f"{log2_scale:g}"
    return f"2^{exponent} = {short_number(2.0**log2_scale, 6)}"


def loss_scale_report(view):
    """The text the loss-scale explorer shows: the scale, the four fractions, the band."""
    v = view
    top_word = "saturate at the max" if v.dtype in SATURATING else "overflow to inf"

    def share(fraction):
        return f"{100 * fraction:.2f}% ({round(fraction * v.count)} of {v.count})"

    return "\n".join([
        f"loss scale: {_scale_text(v.log2_scale)}",
        f"lost to zero: {share(v.underflow_fraction)}",
        f"kept as subnormals: {share(v.subnormal_fraction)}",
        f"kept as normal numbers: {share(v.normal_fraction)}",
        f"{top_word}: {share(v.overflow_fraction)}",
        f"{v.dtype} keeps gradients above {short_number(v.kept_above, 4)}, at full precision from "
        f"{short_number(v.normal_from, 4)}, up to {short_number(v.overflow_from, 4)}",
    ])


LOG2_SCALE_RANGE = (-8, 40)       # loss-scale explorer: log2(loss scale)


LOSS_SCALE_DTYPES = tuple(n for n in ("float16", "bfloat16", "float8_e5m2", "float8_e4m3fn")
                          if n in DTYPE_NAMES)


def loss_scale_explorer(log2_scale=0, dtype="float16", grad_magnitudes=None):
    """A slider over log2(loss scale) on a histogram of gradient magnitudes, and a dtype.

    The magnitudes default to :func:`fplab.model_gradients` (a small model's real
    float32 gradients after 300 training steps; the count axis is logarithmic so that a single
    value shows). The plot shades where the format loses a scaled gradient to zero, keeps it as a
    subnormal, keeps it in full, or overflows; the readout is
    :func:`fplab.loss_scale_report`. ``ValueError`` for an unknown dtype, bad
    magnitudes, or a start scale that is not finite or outside the slider's range.
    """
    choice("dtype", dtype, LOSS_SCALE_DTYPES)
    log2_scale = in_range("log2_scale", log2_scale, LOG2_SCALE_RANGE)
    if log2_scale != int(log2_scale):
        raise ValueError(f"log2_scale must be a whole number here, got {log2_scale:g}")
    if grad_magnitudes is not None:
        grad_magnitudes = check_finite_array("grad_magnitudes", grad_magnitudes, flatten=True)
        if not grad_magnitudes.any():
            raise ValueError("grad_magnitudes holds no non-zero value")
    if grading():
        return skip_notice("loss_scale_explorer")
    custom = grad_magnitudes is not None
    if not custom:
        grad_magnitudes = model_gradients()
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
    figure = new_figure(9.8, 4.0)
    figure.subplots_adjust(left=0.08, right=0.77, bottom=0.14, top=0.9)
    ax = figure.add_subplot()
    counts, edges = np.histogram(log2g, bins=np.arange(low, high + 1))
    ax.set_xlim(low, high)
    ax.set_yscale("log")  # a count of 1 stays visible next to thousands
    ax.set_ylim(BASELINE * 0.9, counts.max() * 2)
    ax.set_xlabel("log2 |gradient|  (before scaling)", fontsize=10)
    ax.set_ylabel("count per power of two", fontsize=10)
    kinds = ("zero", "subnormal", "normal", "overflow")
    spans = {kind: ax.axvspan(low, low, color=REGION_COLOURS[kind], alpha=0.45, lw=0) for kind in kinds}
    label = "gradients" if custom else "gradients (toy model,\nfloat32, step 299)"
    histogram = ax.stairs(np.where(counts > 0, counts, np.nan), edges, baseline=BASELINE, fill=True,
                          color="#444444", alpha=0.75)
    title = ax.set_title("", fontsize=10)  # names the dtype; the fractions are in the readout
    legend_labels = ["lost to zero", "subnormal (fewer bits)", "kept in full", "overflow"]
    legend = ax.legend(handles=[histogram] + [spans[k] for k in kinds],
                       labels=[label] + legend_labels,
                       loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9.5, frameon=False)
    canvas = Canvas(figure, [spans[k] for k in kinds] + [histogram])

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, png_of(figure), figure)

    def restyle(name):
        title.set_text(f"what {name} keeps of the scaled gradients")
        legend.get_texts()[-1].set_text("saturates at max" if name in SATURATING else "overflow to inf")

    def update():
        name = controls["dtype"].value
        view = loss_scale_view(g, check_finite("log2(scale)", controls["log2_scale"].value), name)
        text = loss_scale_report(view)
        bounds = [low, np.log2(view.kept_above), np.log2(view.normal_from), np.log2(view.overflow_from), high]
        bounds = np.clip(bounds, low, high)
        for kind, a, b in zip(kinds, bounds[:-1], bounds[1:]):
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        explorer.show(view, text, canvas.frame(name, restyle))

    canvas.prerender(LOSS_SCALE_DTYPES, restyle)
    return connect(explorer, controls, update)
