"""What the self-study explorers show, computed without a screen.

:mod:`fplab.widgets` draws sliders and plots; every number and every line of text it shows
comes from the functions here, so they can be tested (and called from a notebook) on their own.
No matplotlib or ipywidgets here. Casts are torch's own: a value is taken to float32 first and
then to the target format, as ``torch.tensor(v, dtype=torch.float32).to(dtype)`` does.

- :func:`dtype_regions`: a format's limits and where it rounds to zero, goes subnormal, overflows.
- :func:`describe_value`: what a format stores for one value, the rounding error, the spacing
  there and a status; :func:`value_report` is the text the dtype explorer shows.
- :func:`spacing_at` and :func:`relative_spacing_curve`: the gap between neighbouring values,
  and spacing / magnitude, the curve the dtype explorer plots.
- :func:`softmax_views`: naive and max-shifted softmax and log-sum-exp side by side in one dtype;
  :func:`softmax_report`.
- :func:`loss_scale_view`: which scaled gradients a format loses to zero or to overflow;
  :func:`loss_scale_report`.
- :func:`bits_of`, :func:`bit_fields`, :func:`flip_bit`, :func:`step_value`: a value's bit pattern
  as torch stores it (read with ``Tensor.view`` as an integer dtype), its fields, its neighbours;
  :func:`bits_report` decodes it.
- :func:`accumulate`: a sum built up term by term four ways (naive, pairwise ``torch.sum``,
  Kahan, stochastic rounding), error against n; :func:`accumulation_report`.
- :func:`gradscaler_run`: a small model trained with float16 autocast and a real
  ``torch.amp.GradScaler("cpu")``, recorded step by step; :func:`model_gradients`: its float32
  gradients, what the loss-scale explorer scales; :func:`scaler_run_report`,
  :func:`scaler_step_report`.

Bad input (an unknown dtype name, a non-finite value) raises ``ValueError`` with a message that
says what was wrong.
"""
import functools
import math
import struct
from dataclasses import dataclass

import numpy as np
import torch

# name: (exponent bits, fraction bits). float8 only where this torch has it.
_LAYOUT = {
    "float32": (8, 23),
    "float16": (5, 10),
    "bfloat16": (8, 7),
    "float8_e5m2": (5, 2),
    "float8_e4m3fn": (4, 3),
}
DTYPE_NAMES = tuple(name for name in _LAYOUT if hasattr(torch, name))
"""The dtype names every function here accepts, widest first."""

SATURATING = frozenset({"float8_e4m3fn"})
"""Formats with no infinity: torch's cast clamps anything too large to the largest finite value."""

STATUSES = ("zero", "normal", "subnormal", "rounds to zero", "overflow", "saturates")

DEFAULT_LOGITS = (-1.3, 0.2, 1.1, 2.7)
"""The logit vector the softmax explorer shifts and scales."""


# ---------------------------------------------------------------------------------------------
# validation


def check_dtype_name(dtype_name):
    """Return ``dtype_name`` if it is one of :data:`DTYPE_NAMES`, else raise ``ValueError``."""
    if not isinstance(dtype_name, str) or dtype_name not in DTYPE_NAMES:
        raise ValueError(f"unknown dtype name {dtype_name!r}; choose one of {', '.join(DTYPE_NAMES)}")
    return dtype_name


def check_finite(name, value):
    """``value`` as a Python float; ``ValueError`` naming ``name`` if it is not a finite real number."""
    if isinstance(value, (str, bytes, bool)) or value is None:
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {number!r}")
    return number


def check_finite_array(name, values, flatten=False):
    """``values`` as a non-empty 1-D float64 array (flattened first if asked); ``ValueError`` otherwise."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of finite numbers") from None
    if flatten:
        array = array.ravel()
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers only; found {array[~np.isfinite(array)][0]!r}")
    return array


def signed_magnitude(log10_magnitude, negative=False):
    """The value a log10-magnitude slider and a sign select: +-10**log10_magnitude, a Python float."""
    exponent = check_finite("log10_magnitude", log10_magnitude)
    if abs(exponent) > 300:
        raise ValueError(f"log10_magnitude must lie in [-300, 300], got {exponent:g}")
    value = 10.0**exponent
    return -value if negative else value


def _torch_dtype(dtype_name):
    return getattr(torch, check_dtype_name(dtype_name))


def cast(values, dtype_name):
    """``values`` rounded to ``dtype_name`` the way torch does it (float32 first), as float64.

    Accepts a number or an array-like; returns a NumPy float64 array of the same shape. Every
    value of these formats is exactly representable in float64, so nothing is rounded on the
    way back.
    """
    dtype = _torch_dtype(dtype_name)
    as32 = torch.as_tensor(np.asarray(values, dtype=np.float64)).to(torch.float32)
    return as32.to(dtype).to(torch.float32).to(torch.float64).numpy()


# ---------------------------------------------------------------------------------------------
# formats and regions


@dataclass(frozen=True)
class Regions:
    """Limits of a format and the magnitudes where its behaviour changes.

    Magnitudes are taken to float32 first, as torch does. For a float32 target the thresholds
    apply to float64 inputs.
    """

    dtype: str
    exponent_bits: int
    mantissa_bits: int
    max: float                 # largest finite value
    smallest_normal: float     # torch.finfo(dtype).tiny
    smallest_subnormal: float  # the first value above zero
    eps: float                 # gap between 1 and the next value up
    zero_up_to: float          # magnitudes up to and including this round to 0 (half the smallest subnormal: the tie goes to 0)
    overflow_from: float       # magnitudes from this one up become inf (inf for a saturating format: it never overflows)
    saturates_above: float     # magnitudes above this become +-max (inf for formats that overflow instead)

    @property
    def saturating(self):
        return self.dtype in SATURATING


def dtype_regions(dtype_name):
    """:class:`Regions` of ``dtype_name``: max, smallest normal and subnormal, eps, and thresholds.

    ``zero_up_to``: half the smallest subnormal, a tie that rounds to the even neighbour 0.
    ``overflow_from``: halfway from ``max`` to the next power of two, a tie whose even
    neighbour is that power, which the format cannot hold, so it becomes inf.
    float8_e4m3fn has no infinity: ``overflow_from`` is inf and ``saturates_above`` is its max.
    """
    dtype = _torch_dtype(dtype_name)
    exponent_bits, mantissa_bits = _LAYOUT[dtype_name]
    info = torch.finfo(dtype)
    largest, tiny, eps = float(info.max), float(info.tiny), float(info.eps)
    smallest_subnormal = tiny * eps  # 0.000...01 x 2^emin: the last fraction bit of the lowest binade
    top = math.frexp(largest)[1] - 1  # exponent of the largest binade
    if dtype_name in SATURATING:
        overflow_from, saturates_above = math.inf, largest
    else:
        overflow_from, saturates_above = largest + math.ldexp(1.0, top - mantissa_bits - 1), math.inf
    return Regions(dtype_name, exponent_bits, mantissa_bits, largest, tiny, smallest_subnormal, eps,
                   smallest_subnormal / 2, overflow_from, saturates_above)


def _spacing(regions, magnitudes):
    """Gap between neighbouring values of the format around each magnitude (float64 array).

    Within a binade [2^e, 2^(e+1)) the gap is 2^(e - mantissa_bits); below the smallest normal it
    stays the smallest subnormal. NaN from the first binade the format does not have.
    """
    m = np.abs(np.asarray(magnitudes, dtype=np.float64))
    lowest = math.frexp(regions.smallest_normal)[1] - 1
    highest = math.frexp(regions.max)[1] - 1
    binade = np.frexp(m)[1].astype(np.int64) - 1  # floor(log2 m); frexp gives 0 for 0 and inf
    binade = np.where(m == 0, lowest, np.maximum(binade, lowest))
    spacing = np.ldexp(1.0, binade - regions.mantissa_bits)
    return np.where(m < math.ldexp(1.0, highest + 1), spacing, np.nan)


def spacing_at(magnitude, dtype_name):
    """Gap between the two neighbouring ``dtype_name`` values around ``magnitude``.

    At a power of two it is the gap above it. Below the smallest normal it is the smallest
    subnormal. ``None`` from twice the largest binade up (the format has no numbers there).
    """
    regions = dtype_regions(dtype_name)
    gap = float(_spacing(regions, check_finite("magnitude", magnitude)))
    return None if math.isnan(gap) else gap


def relative_spacing_curve(dtype_name, magnitudes):
    """Spacing / magnitude of ``dtype_name`` at each magnitude (sign ignored): a float64 array.

    Between eps/2 and eps in the normal range (a sawtooth: it jumps to eps at each power of
    two), rising as 1/magnitude through the subnormals. NaN where the magnitude rounds to zero
    or lies above the largest finite value.
    """
    regions = dtype_regions(dtype_name)
    m = np.abs(np.asarray(magnitudes, dtype=np.float64))
    if not np.isfinite(m).all():
        raise ValueError("magnitudes must be finite")
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = _spacing(regions, m) / m
    return np.where((m > regions.zero_up_to) & (m <= regions.max), relative, np.nan)


# ---------------------------------------------------------------------------------------------
# one value


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
    gap = float(_spacing(regions, as_float32))
    return ValueDescription(
        dtype=dtype_name, value=value, as_float32=as_float32, stored=stored, abs_error=error,
        rel_error=error / abs(value) if value else 0.0,
        spacing=None if math.isnan(gap) or math.isinf(stored) else gap, status=status,
    )


def _g(x, digits):
    return f"{x:.{digits}g}"


def _why(d, regions):
    limit = _g(regions.max, 6)
    if d.status == "zero":
        return "zero is stored exactly"
    if d.status == "overflow":
        return f"at or above {_g(regions.overflow_from, 6)}, so it rounds to inf"
    if d.status == "saturates":
        return f"above the largest finite {limit}; {d.dtype} has no inf and clamps it to {_g(d.stored, 6)}"
    if d.status == "rounds to zero":
        return f"at most half the smallest subnormal ({_g(regions.zero_up_to, 4)}), so it rounds to 0"
    if d.status == "subnormal":
        return (f"below the smallest normal {_g(regions.smallest_normal, 4)}: fewer significant bits, "
                f"spacing stuck at {_g(regions.smallest_subnormal, 4)}")
    if abs(d.as_float32) > regions.max:
        return f"above the largest finite {limit} but below {_g(regions.overflow_from, 6)}: rounds down to it"
    return f"between the smallest normal {_g(regions.smallest_normal, 4)} and the largest finite {limit}"


def spacing_text(description) -> str:
    """The spacing of a :class:`ValueDescription` to 4 digits, or why there is none: inf has no
    neighbours to be apart from, and beyond the largest binade the format has no numbers."""
    if description.spacing is not None:
        return _g(description.spacing, 4)
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
        f"value: {_g(d.value, 9)}",
        f"as float32: {_g(d.as_float32, 9)}",
        f"stored in {d.dtype}: {_g(d.stored, 9)}",
        f"absolute error: {_g(d.abs_error, 4)}",
        f"relative error: {_g(d.rel_error, 4)}",
        f"spacing (ulp) here: {spacing}",
        f"status: {d.status}",
        f"why: {_why(d, regions)}",
    ])


# ---------------------------------------------------------------------------------------------
# softmax


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
    dtype = _torch_dtype(dtype_name)
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
        f"logits = {_g(v.scale, 6)} * base + {_g(v.shift, 6)}, stored in {v.dtype}: "
        + ", ".join(_g(x, 6) for x in v.logits),
        f"arithmetic: {arithmetic}",
        f"{'':<{width}}{'naive':<{width}}{'shifted':<{width}}float64",
        f"{'sum of exp':<{width}}{_g(v.naive_exp_sum, 5):<{width}}{_g(v.shifted_exp_sum, 5):<{width}}",
    ]
    for i, (a, b, c) in enumerate(zip(v.naive_softmax, v.shifted_softmax, v.reference_softmax)):
        lines.append(f"{f'p[{i}]':<{width}}{_g(a, 4):<{width}}{_g(b, 4):<{width}}{_g(c, 4)}")
    lines.append(f"{'logsumexp':<{width}}{_g(v.naive_logsumexp, 6):<{width}}"
                 f"{_g(v.shifted_logsumexp, 6):<{width}}{_g(v.reference_logsumexp, 6)}")
    lines = [line.rstrip() for line in lines]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# loss scaling


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
    return f"2^{exponent} = {_g(2.0**log2_scale, 6)}"


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
        f"{v.dtype} keeps gradients above {_g(v.kept_above, 4)}, at full precision from "
        f"{_g(v.normal_from, 4)}, up to {_g(v.overflow_from, 4)}",
    ])


# ---------------------------------------------------------------------------------------------
# bits


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
    exponent_bits, mantissa_bits = _LAYOUT[check_dtype_name(dtype_name)]
    return 1 + exponent_bits + mantissa_bits


def exponent_bias(dtype_name: str) -> int:
    """The bias subtracted from the exponent field: 2^(exponent bits - 1) - 1."""
    return 2 ** (_LAYOUT[check_dtype_name(dtype_name)][0] - 1) - 1


def bit_pattern(value: float, dtype_name: str) -> int:
    """The bits torch stores for ``value`` in ``dtype_name`` (cast through float32), as an unsigned int.

    Read with ``Tensor.view`` as an integer dtype of the same width.
    """
    width = bit_width(dtype_name)
    stored = torch.tensor(check_finite("value", value), dtype=torch.float32).to(_torch_dtype(dtype_name))
    return int(stored.view(_INT_VIEW[width]).item()) & ((1 << width) - 1)


def pattern_value(pattern: int, dtype_name: str) -> float:
    """The number torch reads from ``pattern`` (an unsigned int of the format's width): may be inf or nan."""
    width = bit_width(dtype_name)
    if isinstance(pattern, bool) or not isinstance(pattern, int) or not 0 <= pattern < 1 << width:
        raise ValueError(f"pattern must be an integer in [0, 2^{width}) for {dtype_name}, got {pattern!r}")
    signed = pattern - (1 << width) if width > 8 and pattern >> (width - 1) else pattern
    return float(torch.tensor(signed, dtype=_INT_VIEW[width]).view(_torch_dtype(dtype_name)).item())


def bit_fields(pattern: int, dtype_name: str) -> BitFields:
    """Split ``pattern`` into sign, exponent and fraction fields and say what kind of number it is.

    An exponent field of all ones is inf (fraction 0) or nan, except in float8_e4m3fn, which has
    no inf: there only the all-ones pattern (exponent and fraction) is nan.
    """
    value = pattern_value(pattern, dtype_name)
    exponent_bits, mantissa_bits = _LAYOUT[dtype_name]
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
    exponent_bits, mantissa_bits = _LAYOUT[fields.dtype]
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


# ---------------------------------------------------------------------------------------------
# accumulation


ACCUMULATION_DTYPES = ("float16", "bfloat16", "float32")
ACCUMULATION_METHODS = ("naive", "pairwise", "kahan", "stochastic")
ACCUMULATION_DATA = ("1e-4 repeated", "uniform(0, 1)")
ACCUMULATION_N = 10_000
"""The longest sum the accumulation explorer computes."""

_F32, _F16, _U32, _U16 = (struct.Struct(code) for code in "feIH")


def _round32(x: float) -> float:
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _bits32(x: float) -> int:
    return _U32.unpack(_F32.pack(x))[0]


def _from_bits32(bits: int) -> float:
    return _F32.unpack(_U32.pack(bits))[0]


def _round_bf16_bits(bits32: int) -> int:
    """Round a float32 pattern to the nearest bfloat16 (ties to even), as torch does; 16-bit result."""
    return (bits32 + 0x7FFF + ((bits32 >> 16) & 1)) >> 16


class _Format:
    """Round a float64 to a format the way torch's arithmetic does (exact result -> float32 -> format),
    and read and write the format's bit patterns, in plain Python for speed."""

    def __init__(self, dtype_name: str):
        if dtype_name not in ACCUMULATION_DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(ACCUMULATION_DTYPES)}, got {dtype_name!r}")
        self.dtype = dtype_name

    def round(self, x: float) -> float:
        x32 = _round32(x)
        if self.dtype == "float32" or not math.isfinite(x32):
            return x32
        if self.dtype == "bfloat16":
            return _from_bits32(_round_bf16_bits(_bits32(x32)) << 16)
        try:
            return _F16.unpack(_F16.pack(x32))[0]
        except OverflowError:
            return math.copysign(math.inf, x32)

    def bits(self, x: float) -> int:
        if self.dtype == "float32":
            return _bits32(x)
        if self.dtype == "bfloat16":
            return _bits32(x) >> 16
        return _U16.unpack(_F16.pack(x))[0]

    def value(self, bits: int) -> float:
        if self.dtype == "float32":
            return _from_bits32(bits)
        if self.dtype == "bfloat16":
            return _from_bits32(bits << 16)
        return _F16.unpack(_U16.pack(bits))[0]


def stochastic_round(x: float, dtype_name: str, u: float) -> float:
    """``x`` rounded to one of its two neighbours in ``dtype_name``, chosen with the draw ``u`` in [0, 1).

    The neighbours are consecutive bit patterns: the one at or below |x| and the next. It rounds
    away from zero when ``u`` < (|x| - lower) / spacing, so on average the result is ``x``
    (unbiased, unlike round-to-nearest). Values of the format come back unchanged.
    """
    fmt, magnitude = _Format(dtype_name), abs(check_finite("x", x))
    nearest = fmt.round(magnitude)
    below = fmt.bits(nearest) - (nearest > magnitude)
    lower, upper = fmt.value(below), fmt.value(below + 1)
    if lower == magnitude:
        return math.copysign(lower, x)
    return math.copysign(upper if u < (magnitude - lower) / (upper - lower) else lower, x)


def accumulation_terms(data: str, dtype_name: str, n: int = ACCUMULATION_N, seed: int = 0) -> np.ndarray:
    """The ``n`` terms of ``data`` (one of :data:`ACCUMULATION_DATA`) as stored in ``dtype_name``, float64."""
    if data not in ACCUMULATION_DATA:
        raise ValueError(f"data must be one of {', '.join(map(repr, ACCUMULATION_DATA))}, got {data!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    raw = np.full(n, 1e-4) if data == ACCUMULATION_DATA[0] else np.random.default_rng(seed).random(n)
    return cast(raw, dtype_name)


def running_sums(terms, dtype_name: str, method: str, seed: int = 0) -> np.ndarray:
    """The running total after each term, every addition rounded to ``dtype_name`` as torch rounds it.

    ``naive``: left to right. ``kahan``: compensated, every step in the format. ``stochastic``:
    the exact sum of total and term, stochastically rounded (:func:`stochastic_round`, seeded).
    (``pairwise`` has no running total: see :func:`accumulate`.)
    """
    fmt = _Format(dtype_name)
    rnd = fmt.round
    terms = check_finite_array("terms", terms).tolist()
    totals = np.empty(len(terms))
    total = compensation = 0.0
    if method == "naive":
        for i, term in enumerate(terms):
            total = totals[i] = rnd(total + term)
    elif method == "kahan":
        for i, term in enumerate(terms):
            y = rnd(term - compensation)
            t = rnd(total + y)
            compensation = rnd(rnd(t - total) - y)
            total = totals[i] = t
    elif method == "stochastic":
        draws = np.random.default_rng([seed, 1]).random(len(terms)).tolist()  # not the data's stream
        for i, (term, u) in enumerate(zip(terms, draws)):
            total = totals[i] = stochastic_round(total + term, dtype_name, u)
    else:
        raise ValueError(f"method must be naive, kahan or stochastic, got {method!r}")
    return totals


@dataclass(frozen=True)
class AccumulationRun:
    """Totals of one data set summed four ways in one format, at checkpoints ``ns``."""

    data: str
    dtype: str
    unit_roundoff: float   # u = eps / 2: the largest relative error of one rounding
    ns: np.ndarray         # checkpoints: how many terms are summed
    exact: np.ndarray      # exact sums of the stored terms (float64)
    totals: dict           # method -> totals at the checkpoints
    last_growth: dict      # method -> the last term, up to each checkpoint, that changed the total (sequential methods)

    def relative_error(self, method: str) -> np.ndarray:
        return np.abs(self.totals[method] - self.exact) / np.abs(self.exact)


def accumulation_checkpoints(n: int = ACCUMULATION_N) -> np.ndarray:
    """The n at which :func:`accumulate` reports totals: 1 to ``n``, about 120 of them, log-spaced."""
    return np.unique(np.round(np.geomspace(1, n, 121)).astype(np.int64))


@functools.lru_cache(maxsize=16)
def accumulate(data: str, dtype_name: str, n: int = ACCUMULATION_N, seed: int = 0) -> AccumulationRun:
    """Sum the first k terms of ``data`` in ``dtype_name`` for k at log-spaced checkpoints up to ``n``.

    naive, kahan and stochastic as in :func:`running_sums`; pairwise is ``torch.sum`` of the
    first k terms as a ``dtype_name`` tensor (torch adds in blocks, and on the CPU it
    accumulates float16 and bfloat16 in float32, rounding the result once). Cached: the
    explorer computes each (data, dtype) once.
    """
    _Format(dtype_name)  # checks the dtype before any work
    terms = accumulation_terms(data, dtype_name, n, seed)
    ns = accumulation_checkpoints(n)
    totals, last_growth = {}, {}
    for method in ("naive", "kahan", "stochastic"):
        running = running_sums(terms, dtype_name, method, seed)
        changed = np.flatnonzero(np.diff(running, prepend=0.0) != 0) + 1  # 1-based term numbers
        totals[method] = running[ns - 1]
        last_growth[method] = changed[np.searchsorted(changed, ns, side="right") - 1]
    stored = torch.from_numpy(terms).to(_torch_dtype(dtype_name))
    totals["pairwise"] = np.array([float(stored[:k].sum()) for k in ns])
    exact = np.cumsum(terms)[ns - 1]  # exact: at most 14 + 24 significant bits
    for array in [*totals.values(), *last_growth.values(), ns, exact]:
        array.flags.writeable = False
    return AccumulationRun(data, dtype_name, dtype_regions(dtype_name).eps / 2, ns, exact,
                           {m: totals[m] for m in ACCUMULATION_METHODS}, last_growth)


def accumulation_report(run: AccumulationRun, n: int) -> str:
    """The text the accumulation explorer shows at checkpoint ``n``: each method's total and error."""
    matches = np.flatnonzero(run.ns == n)
    if matches.size == 0:
        raise ValueError(f"n must be one of the run's checkpoints, got {n!r}")
    i = int(matches[0])
    u = run.unit_roundoff
    lines = [f"{run.data} in {run.dtype}, n = {n}: exact sum {_g(run.exact[i], 9)}",
             f"u = {_g(u, 4)} (half of eps); n·u = {_g(n * u, 4)}, √n·u = {_g(math.sqrt(n) * u, 4)}",
             f"{'method':<12}{'total':<14}{'rel. error':<12}last term that changed the total"]
    for method in ACCUMULATION_METHODS:
        last = run.last_growth.get(method)
        grew = "-" if last is None else str(last[i])
        lines.append(f"{method:<12}{_g(run.totals[method][i], 7):<14}{_g(run.relative_error(method)[i], 3):<12}{grew}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# a real GradScaler run


SCALER_STEPS = 300
SCALER_LAYERS = ("layer 1 (16→32)", "layer 2 (32→32)", "layer 3 (32→32)", "layer 4 (32→4)")
SCALER_BINS = np.arange(-64.0, 17.0)
"""log2 bin edges of the gradient histograms: unscaled magnitudes from 2^-64 to 2^16."""
GRADIENT_CLASSES = ("zero", "subnormal", "normal", "inf/nan")


class _PlainSGD:
    """``p -= lr * grad``: all GradScaler needs of an optimizer, without torch.optim's first-use import cost."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params)}]
        self.lr = lr

    @torch.no_grad()
    def step(self):
        for p in self.param_groups[0]["params"]:
            p.add_(p.grad, alpha=-self.lr)


def _toy_problem(seed):
    """A seeded 4-layer tanh MLP and one batch of 128 points in 16-d, 4 classes (the largest of 4 features)."""
    sizes = [16, 32, 32, 32, 4]
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers += [torch.nn.Linear(a, b)] + ([torch.nn.Tanh()] if i < len(sizes) - 2 else [])
    model = torch.nn.Sequential(*layers)
    inputs = torch.randn(128, 16)
    return model, inputs, inputs[:, :4].argmax(dim=1)


def _classify(grads: torch.Tensor) -> list:
    """Counts of float16 gradient values that are zero, subnormal, normal and inf/nan."""
    finite = torch.isfinite(grads)
    magnitude = grads.abs()
    tiny = torch.finfo(torch.float16).tiny
    return [int((magnitude == 0).sum()), int((finite & (magnitude > 0) & (magnitude < tiny)).sum()),
            int((finite & (magnitude >= tiny)).sum()), int((~finite).sum())]


@dataclass(frozen=True)
class ScalerRun:
    """A small model trained with float16 autocast and ``torch.amp.GradScaler("cpu")``, step by step."""

    init_scale: float
    growth_interval: int
    backoff_factor: float
    growth_factor: float
    scales: np.ndarray    # the scale each step's backward used
    skipped: np.ndarray   # True where GradScaler skipped the optimizer step (inf/nan gradients)
    losses: np.ndarray    # float32 loss at each step
    counts: np.ndarray    # (step, layer, bin): finite non-zero |gradient| / scale in SCALER_BINS
    classes: np.ndarray   # (step, layer, class): float16 gradients per GRADIENT_CLASSES (scaled, as stored)


def _train(steps, seed, scaler=None, record=None):
    """Train the toy model with plain SGD; with a scaler, under float16 autocast. Calls ``record(step, model)``
    after each backward (before the step). Runs on one thread in a forked RNG, so it repeats exactly."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            model, inputs, targets = _toy_problem(seed)
            optimizer = _PlainSGD(model.parameters(), lr=0.5)
            for step in range(steps):
                for p in model.parameters():
                    p.grad = None
                with torch.autocast("cpu", dtype=torch.float16, enabled=scaler is not None):
                    loss = torch.nn.functional.cross_entropy(model(inputs), targets)
                (loss if scaler is None else scaler.scale(loss)).backward()
                record(step, model, loss)
                if scaler is None:
                    optimizer.step()
                else:
                    scaler.step(optimizer)
                    scaler.update()
    finally:
        torch.set_num_threads(threads)


def _layer_grads(model):
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    return [torch.cat([m.weight.grad.flatten(), m.bias.grad.flatten()]) for m in linear]


@functools.lru_cache(maxsize=8)
def gradscaler_run(init_scale: float = 2.0**16, growth_interval: int = 20, backoff_factor: float = 0.5,
                   steps: int = SCALER_STEPS, seed: int = 0) -> ScalerRun:
    """Train the toy model for ``steps`` steps with float16 autocast and ``torch.amp.GradScaler("cpu")``.

    Records, at every step, the scale, whether the step was skipped, the loss, and per layer the
    gradients as float16 produced them (the parameters are float32, their gradients arrive
    through float16 casts) classified by :func:`_classify` and histogrammed as |gradient| / scale.
    ``growth_factor`` is GradScaler's default, 2. Cached per knob setting; about 0.3-1 s.
    """
    init_scale = check_finite("init_scale", init_scale)
    backoff_factor = check_finite("backoff_factor", backoff_factor)
    if init_scale <= 0 or not 0 < backoff_factor < 1 or int(growth_interval) != growth_interval or growth_interval < 1:
        raise ValueError("need init_scale > 0, 0 < backoff_factor < 1 and a whole growth_interval >= 1")
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=int(growth_interval),
                                  backoff_factor=backoff_factor)
    scales, losses = np.empty(steps), np.empty(steps)
    counts = np.zeros((steps, len(SCALER_LAYERS), len(SCALER_BINS) - 1), dtype=np.int64)
    classes = np.zeros((steps, len(SCALER_LAYERS), len(GRADIENT_CLASSES)), dtype=np.int64)

    def record(step, model, loss):
        scales[step], losses[step] = scaler.get_scale(), loss.item()
        for layer, grads in enumerate(_layer_grads(model)):
            classes[step, layer] = _classify(grads)
            kept = grads[torch.isfinite(grads) & (grads != 0)].abs().double()
            logs = (torch.log2(kept) - math.log2(scales[step])).clamp(SCALER_BINS[0], SCALER_BINS[-1] - 0.5)
            counts[step, layer] = torch.histc(logs, bins=len(SCALER_BINS) - 1, min=SCALER_BINS[0],
                                              max=SCALER_BINS[-1]).long().numpy()

    _train(steps, seed, scaler, record)
    skipped = classes[:, :, 3].sum(axis=1) > 0
    for array in (scales, skipped, losses, counts, classes):
        array.flags.writeable = False
    return ScalerRun(init_scale, int(growth_interval), backoff_factor, 2.0, scales, skipped, losses, counts, classes)


@functools.lru_cache(maxsize=2)
def model_gradients(steps: int = SCALER_STEPS, seed: int = 0) -> np.ndarray:
    """|gradient| of every parameter of the toy model after ``steps`` steps of plain float32 training.

    Real gradients with nothing lost to a narrow format: what the loss-scale explorer scales.
    """
    kept = {}

    def record(step, model, loss):
        if step == steps - 1:
            kept["grads"] = torch.cat(_layer_grads(model)).abs().double().numpy()

    _train(steps, seed, record=record)
    return kept["grads"]


def _power_text(x: float) -> str:
    exponent = math.log2(x)
    return f"2^{exponent:g}" if exponent == int(exponent) else f"2^{exponent:.2f}"


def scaler_run_report(run: ScalerRun) -> str:
    """One paragraph on a whole run: knobs, skipped steps, the scale's range and where it ended."""
    skipped = np.flatnonzero(run.skipped)
    listed = ", ".join(map(str, skipped[:8])) + (", ..." if skipped.size > 8 else "")
    return "\n".join([
        f"init_scale {_power_text(run.init_scale)}, growth_interval {run.growth_interval}, "
        f"backoff_factor {run.backoff_factor:g}, growth_factor {run.growth_factor:g}",
        f"skipped steps: {skipped.size} of {run.scales.size}" + (f" (step {listed})" if skipped.size else ""),
        f"scale: from {_power_text(run.scales[0])} to {_power_text(run.scales[-1])}, "
        f"highest {_power_text(run.scales.max())}; loss {run.losses[0]:.4g} -> {run.losses[-1]:.4g}",
    ])


def scaler_step_report(run: ScalerRun, step: int) -> str:
    """What float16 held at ``step``: the scale, skipped or not, and per layer the gradient classes."""
    if isinstance(step, bool) or int(step) != step or not 0 <= step < run.scales.size:
        raise ValueError(f"step must be a whole number in [0, {run.scales.size - 1}], got {step!r}")
    step = int(step)
    scale = run.scales[step]
    regions = dtype_regions("float16")
    verdict = "skipped: inf/nan in the scaled gradients, scale x backoff" if run.skipped[step] else "applied"
    lines = [f"step {step}: scale {_power_text(scale)} = {_g(scale, 8)}, loss {run.losses[step]:.4g}, {verdict}",
             f"{'float16 gradients':<18}" + "".join(f"{c:>11}" for c in GRADIENT_CLASSES)]
    for layer, name in enumerate(SCALER_LAYERS):
        lines.append(f"{name:<18}" + "".join(f"{int(c):>11}" for c in run.classes[step, layer]))
    lines.append(f"at this scale float16 keeps |gradient| above {_g(regions.zero_up_to / scale, 4)}, "
                 f"in full from {_g(regions.smallest_normal / scale, 4)}, below {_g(regions.overflow_from / scale, 4)}")
    return "\n".join(lines)
