"""The dtype explorer: what a format stores for a value (the rounding error, the spacing there, a
status), its bit pattern and fields, and the widget that shows them.
"""
import functools
import math
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import torch

from fplab.explorers.controls import Explorer, grading, in_range, on_change, skip_notice, timed
from fplab.explorers.formats import (
    cast, check_dtype_name, check_finite, DTYPE_NAMES, dtype_regions, LAYOUT, relative_spacing_curve,
    SATURATING, short_number, signed_magnitude, spacing_of, torch_dtype,
)
from fplab.explorers.plotting import Canvas, DTYPE_COLOURS, new_figure, png_of, power_of_ten, REGION_COLOURS


@dataclass(frozen=True)
class ValueDescription:
    """What a format does to one value (see :func:`describe_value`)."""

    dtype: str
    value: float       # the input
    as_float32: float  # the input rounded to float32: what the cast starts from
    stored: float      # the value the format holds
    abs_error: float   # |stored - value|
    rel_error: float   # abs_error / |value| (0 for a zero input)
    spacing: float | None  # gap between neighbouring values here (None: beyond the format, or stored as inf)
    status: str        # one of STATUSES


def describe_value(value, dtype_name):
    """Store ``value`` in ``dtype_name`` and describe what happened.

    ``status`` is "zero" for a zero input, else "overflow" (the result is inf), "saturates"
    (float8_e4m3fn, the value is beyond its max and clamped to it), "rounds to zero",
    "subnormal" (a non-zero result below the smallest normal) or "normal".
    ``ValueError`` for an unknown dtype name or a value that is not a finite number.
    """
    regions = dtype_regions(dtype_name)
    value = check_finite("value", value)
    as_float32 = float(cast(value, "float32"))
    stored = float(cast(value, dtype_name))
    error = abs(stored - value)
    if value == 0:
        status = "zero"
    elif math.isinf(stored):
        status = "overflow"
    elif abs(as_float32) > regions.saturates_above:
        status = "saturates"
    elif stored == 0:
        status = "rounds to zero"
    elif abs(stored) < regions.smallest_normal:
        status = "subnormal"
    else:
        status = "normal"
    gap = float(spacing_of(regions, as_float32))
    return ValueDescription(
        dtype=dtype_name, value=value, as_float32=as_float32, stored=stored, abs_error=error,
        rel_error=error / abs(value) if value else 0.0,
        spacing=None if math.isnan(gap) or math.isinf(stored) else gap, status=status,
    )


def _why(d, regions):
    limit = short_number(regions.max, 6)
    if d.status == "zero":
        return "zero is stored exactly"
    if d.status == "overflow":
        return f"at or above {short_number(regions.overflow_from, 6)}, so it rounds to inf"
    if d.status == "saturates":
        return f"above the largest finite {limit}; {d.dtype} has no inf and clamps it to {short_number(d.stored, 6)}"
    if d.status == "rounds to zero":
        return f"at most half the smallest subnormal ({short_number(regions.zero_up_to, 4)}), so it rounds to 0"
    if d.status == "subnormal":
        return (f"below the smallest normal {short_number(regions.smallest_normal, 4)}: fewer significant bits, "
                f"spacing stuck at {short_number(regions.smallest_subnormal, 4)}")
    if abs(d.as_float32) > regions.max:
        return f"above the largest finite {limit} but below {short_number(regions.overflow_from, 6)}: rounds down to it"
    return f"between the smallest normal {short_number(regions.smallest_normal, 4)} and the largest finite {limit}"


def spacing_text(description) -> str:
    """The spacing of a :class:`ValueDescription` to 4 digits, or why there is none: inf has no
    neighbours to be apart from, and beyond the largest binade the format has no numbers."""
    if description.spacing is not None:
        return short_number(description.spacing, 4)
    return "n/a (stored as inf)" if math.isinf(description.stored) else "n/a (beyond the largest binade)"


def value_report(description):
    """The text the dtype explorer shows for a :class:`ValueDescription`, one fact per line.

    Values are printed with 9 significant digits (enough to tell float32 neighbours apart),
    errors and spacings with 4; inf and nan print as ``inf`` and ``nan``.
    """
    d = description
    regions = dtype_regions(d.dtype)
    spacing = spacing_text(d)
    return "\n".join([
        f"value: {short_number(d.value, 9)}",
        f"as float32: {short_number(d.as_float32, 9)}",
        f"stored in {d.dtype}: {short_number(d.stored, 9)}",
        f"absolute error: {short_number(d.abs_error, 4)}",
        f"relative error: {short_number(d.rel_error, 4)}",
        f"spacing (ulp) here: {spacing}",
        f"status: {d.status}",
        f"why: {_why(d, regions)}",
    ])


_INT_VIEW = {8: torch.uint8, 16: torch.int16, 32: torch.int32}


BIT_KINDS = ("zero", "subnormal", "normal", "inf", "nan")


@dataclass(frozen=True)
class BitFields:
    """One bit pattern of a format, split into its fields (see :func:`bit_fields`)."""

    dtype: str
    pattern: int    # the stored bits as an unsigned integer
    sign: int       # 0 or 1
    exponent: int   # the exponent field as stored (biased)
    fraction: int   # the fraction (mantissa) field
    value: float    # what torch reads from the pattern: may be inf or nan
    kind: str       # one of BIT_KINDS

    @property
    def width(self) -> int:
        return bit_width(self.dtype)

    @property
    def bits(self) -> str:
        """The pattern as a string of 0s and 1s, sign bit first."""
        return format(self.pattern, f"0{self.width}b")


def bit_width(dtype_name: str) -> int:
    """Bits in one value of ``dtype_name``: 1 sign + exponent + fraction bits."""
    exponent_bits, mantissa_bits = LAYOUT[check_dtype_name(dtype_name)]
    return 1 + exponent_bits + mantissa_bits


def exponent_bias(dtype_name: str) -> int:
    """The bias subtracted from the exponent field: 2^(exponent bits - 1) - 1."""
    return 2 ** (LAYOUT[check_dtype_name(dtype_name)][0] - 1) - 1


def bit_pattern(value: float, dtype_name: str) -> int:
    """The bits torch stores for ``value`` in ``dtype_name`` (cast through float32), as an unsigned int.

    Read with ``Tensor.view`` as an integer dtype of the same width.
    """
    width = bit_width(dtype_name)
    stored = torch.tensor(check_finite("value", value), dtype=torch.float32).to(torch_dtype(dtype_name))
    return int(stored.view(_INT_VIEW[width]).item()) & ((1 << width) - 1)


def pattern_value(pattern: int, dtype_name: str) -> float:
    """The number torch reads from ``pattern`` (an unsigned int of the format's width): may be inf or nan."""
    width = bit_width(dtype_name)
    if isinstance(pattern, bool) or not isinstance(pattern, int) or not 0 <= pattern < 1 << width:
        raise ValueError(f"pattern must be an integer in [0, 2^{width}) for {dtype_name}, got {pattern!r}")
    signed = pattern - (1 << width) if width > 8 and pattern >> (width - 1) else pattern
    return float(torch.tensor(signed, dtype=_INT_VIEW[width]).view(torch_dtype(dtype_name)).item())


def bit_fields(pattern: int, dtype_name: str) -> BitFields:
    """Split ``pattern`` into sign, exponent and fraction fields and say what kind of number it is.

    An exponent field of all ones is inf (fraction 0) or nan, except in float8_e4m3fn, which has
    no inf: there only the all-ones pattern (exponent and fraction) is nan.
    """
    value = pattern_value(pattern, dtype_name)
    exponent_bits, mantissa_bits = LAYOUT[dtype_name]
    fraction = pattern & ((1 << mantissa_bits) - 1)
    exponent = (pattern >> mantissa_bits) & ((1 << exponent_bits) - 1)
    top = exponent == (1 << exponent_bits) - 1
    if dtype_name in SATURATING:
        kind = "nan" if top and fraction == (1 << mantissa_bits) - 1 else None
    else:
        kind = ("inf" if fraction == 0 else "nan") if top else None
    if kind is None:
        kind = "normal" if exponent else ("subnormal" if fraction else "zero")
    return BitFields(dtype_name, pattern, pattern >> (exponent_bits + mantissa_bits), exponent, fraction, value, kind)


def bits_of(value: float, dtype_name: str) -> BitFields:
    """:class:`BitFields` of ``value`` as ``dtype_name`` stores it."""
    return bit_fields(bit_pattern(value, dtype_name), dtype_name)


def flip_bit(pattern: int, index: int, dtype_name: str) -> int:
    """``pattern`` with one bit flipped; ``index`` counts from the left, 0 being the sign bit."""
    width = bit_width(dtype_name)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < width:
        raise ValueError(f"index must be an integer in [0, {width}) for {dtype_name}, got {index!r}")
    return pattern ^ (1 << (width - 1 - index))


def step_value(value: float, dtype_name: str, direction: int) -> float:
    """The next number of the format above (``direction`` +1) or below (-1) the stored ``value``.

    Neighbours are consecutive bit patterns of the magnitude; stepping across zero goes through
    the smallest subnormal. Past the largest finite value the result is inf (nan for
    float8_e4m3fn, whose next pattern is its nan); beyond inf it stays inf.
    """
    if direction not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, got {direction!r}")
    fields = bits_of(value, dtype_name)
    sign_bit = 1 << (fields.width - 1)
    magnitude = fields.pattern & (sign_bit - 1)
    if magnitude == 0:
        return pattern_value(1 if direction > 0 else sign_bit | 1, dtype_name)
    away_from_zero = (direction > 0) != bool(fields.sign)
    if fields.kind == "inf" and away_from_zero:
        return fields.value  # nothing lies beyond inf
    return pattern_value((fields.pattern & sign_bit) | (magnitude + (1 if away_from_zero else -1)), dtype_name)


def bits_report(fields: BitFields) -> str:
    """The fields of a pattern and the formula that decodes it, as the dtype explorer shows them."""
    exponent_bits, mantissa_bits = LAYOUT[fields.dtype]
    bits, bias = fields.bits, exponent_bias(fields.dtype)
    sign, exponent, fraction = bits[0], bits[1:1 + exponent_bits], bits[1 + exponent_bits:]
    lines = [f"{fields.dtype} bits: {sign} {exponent} {fraction}  (0x{fields.pattern:0{fields.width // 4}x})",
             f"sign {fields.sign} | exponent field {exponent} = {fields.exponent}, bias {bias} | fraction {fraction}"]
    if fields.kind in ("normal", "subnormal"):
        lead = "1" if fields.kind == "normal" else "0"
        shown = f"{fields.exponent} - {bias}" if fields.kind == "normal" else f"1 - {bias}"
        lines.append(f"{fields.kind}: (-1)^{fields.sign} × 2^({shown}) × {lead}.{fraction}₂ = {fields.value!r}")
    elif fields.kind == "zero":
        lines.append(f"zero: exponent and fraction fields all 0 = {fields.value!r}")
    elif fields.dtype in SATURATING:
        lines.append(f"nan: exponent and fraction all ones ({fields.dtype} has no inf)")
    else:
        rule = "fraction 0" if fields.kind == "inf" else "fraction not 0"
        lines.append(f"{fields.kind}: exponent all ones, {rule} = {fields.value!r}")
    return "\n".join(lines)


LOG10_RANGE = (-46.0, 40.0)       # dtype explorer: log10 |x| slider


def _curve_magnitudes(low, high):
    """A log-spaced grid plus every power of two and the float just below it (sharp sawtooth)."""
    grid = np.geomspace(low, high, 1500)
    powers = np.ldexp(1.0, np.arange(int(np.floor(np.log2(low))), int(np.ceil(np.log2(high))) + 1))
    below = powers * (1 - 2.0**-40)
    m = np.unique(np.concatenate([grid, powers, below]))
    return m[(m >= low) & (m <= high)]


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
    :func:`fplab.value_report` and :func:`fplab.bits_report`; the plot shows
    spacing / |x| for every format, the chosen one's rounds-to-zero, subnormal and overflow
    regions shaded, and the current |x| marked. ``ValueError`` for an unknown dtype or a start
    value that is not finite or outside the slider's range, also during grading.
    """
    check_dtype_name(dtype)
    log10_magnitude = in_range("log10_magnitude", log10_magnitude, LOG10_RANGE)
    if grading():
        return skip_notice("dtype_explorer")
    decade, fraction = _sliders_for(10.0**log10_magnitude)
    controls = {
        "decade": widgets.IntSlider(value=decade, min=int(LOG10_RANGE[0]), max=int(LOG10_RANGE[1]) - 1,
                                    description="log10 |x|: decade", style={"description_width": "initial"},
                                    layout=widgets.Layout(width="420px")),
        "fraction": widgets.FloatSlider(value=fraction, min=0.0, max=0.99, step=0.01, description="+",
                                        readout_format=".2f", layout=widgets.Layout(width="260px")),
        "sign": widgets.ToggleButtons(options=[("+", False), ("-", True)], value=bool(negative),
                                      description="sign", style={"button_width": "36px"}),
        "dtype": widgets.Dropdown(options=list(DTYPE_NAMES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
        "typed": widgets.Text(value="", placeholder="e.g. 65520 or 1e-7", description="type x",
                              layout=widgets.Layout(width="330px")),  # x follows each keystroke that parses
    }
    steppers = {"down": widgets.Button(description="◀ next below"), "up": widgets.Button(description="next above ▶")}
    bits = _bit_buttons(max(bit_width(n) for n in DTYPE_NAMES))
    bit_row = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
    note = widgets.Label()
    rows = [widgets.HBox([steppers["down"], steppers["up"], note]), bit_row]

    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    low, high = 10.0**LOG10_RANGE[0], 10.0**LOG10_RANGE[1]
    figure = new_figure(9.8, 4.4)
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
        axis.set_major_formatter(FuncFormatter(power_of_ten))
    ax.tick_params(labelsize=10)
    ax.set_xlabel("|x|", fontsize=11)
    ax.set_ylabel("spacing / |x|", fontsize=11)
    ax.set_title("relative spacing of each format (thick: the chosen one)", fontsize=11)
    magnitudes = _curve_magnitudes(low, high)
    lines = {}
    for name in DTYPE_NAMES:
        (lines[name],) = ax.plot(magnitudes, relative_spacing_curve(name, magnitudes),
                                 color=DTYPE_COLOURS[name], label=name)
    spans = {kind: ax.axvspan(low, low, color=REGION_COLOURS[kind], alpha=0.2, lw=0, zorder=0)
             for kind in ("zero", "subnormal", "overflow")}
    legend = ax.legend(handles=list(lines.values()) + list(spans.values()),
                       labels=list(lines) + ["rounds to 0", "subnormal", ""], loc="upper left",
                       bbox_to_anchor=(1.01, 1.0), fontsize=10, title=" ", title_fontsize=10, frameon=False)
    (marker,) = ax.plot([np.nan], [np.nan], "o", ms=9, mec="black", zorder=6)
    cursor = ax.axvline(1.0, color="black", lw=0.9, ls="--", zorder=5)
    canvas = Canvas(figure, [cursor, marker], _DTYPE_BACKGROUNDS)

    readout = widgets.HTML()
    explorer = Explorer(controls, readout, png_of(figure), figure, rows)
    explorer.bits, explorer.steppers, explorer.note = bits, steppers, note
    state = {"value": signed_magnitude(log10_magnitude, negative), "syncing": False}

    def restyle(name):
        r = dtype_regions(name)
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
        marker.set_color(DTYPE_COLOURS[name])
        marker.set_markeredgecolor("black")
        bit_row.children = bits[:bit_width(name)]

    def show_bits(fields):
        exponent_bits = dtype_regions(fields.dtype).exponent_bits
        for index, (button, bit) in enumerate(zip(bits, fields.bits)):
            field = _field(index, exponent_bits)
            button.description = bit
            button.tooltip = f"bit {index}: {field}; click to flip it"
            button.style.button_color = _FIELD_COLOURS[field]

    def refresh():
        name = controls["dtype"].value
        value = state["value"]
        description = describe_value(value, name)
        fields = bits_of(value, name)
        text = value_report(description) + "\n\n" + bits_report(fields)
        magnitude = abs(value)
        relative = float(relative_spacing_curve(name, [magnitude])[0]) if magnitude else np.nan
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
        decade = check_finite("decade", controls["decade"].value)
        fraction = check_finite("fraction", controls["fraction"].value)
        if state["syncing"] or (state["value"] and (decade, round(fraction, 2)) == _sliders_for(state["value"])):
            return  # move_to put the sliders here (the browser may echo that back): x stays exact
        state["value"] = signed_magnitude(round(decade + fraction, 2), controls["sign"].value)
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
            value = check_finite("x", _parse_number(typed))
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
        flipped = flip_bit(bit_pattern(state["value"], name), index, name)
        to_pattern_value(pattern_value(flipped, name), f"flipping bit {index}")

    def step(direction):
        name = controls["dtype"].value
        to_pattern_value(step_value(state["value"], name, direction), "the next value " +
                         ("above" if direction > 0 else "below"))

    for key in ("decade", "fraction"):
        controls[key].observe(timed(explorer, from_sliders), names="value")
    on_change(explorer, controls["sign"], from_sign)
    controls["dtype"].observe(timed(explorer, refresh), names="value")
    on_change(explorer, controls["typed"], from_text)
    for index, button in enumerate(bits):
        button.on_click(timed(explorer, functools.partial(flip, index)))
    steppers["down"].on_click(timed(explorer, functools.partial(step, -1)))
    steppers["up"].on_click(timed(explorer, functools.partial(step, 1)))
    canvas.prerender(DTYPE_NAMES, restyle)
    refresh()
    return explorer
