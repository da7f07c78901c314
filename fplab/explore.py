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
  :func:`sample_gradient_magnitudes` makes the seeded sample the explorer uses;
  :func:`loss_scale_report`.

Bad input (an unknown dtype name, a non-finite value) raises ``ValueError`` with a message that
says what was wrong.
"""
import math
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
    spacing: float | None  # gap between neighbouring values here (None: beyond the format)
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
        spacing=None if math.isnan(gap) else gap, status=status,
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


def value_report(description):
    """The text the dtype explorer shows for a :class:`ValueDescription`, one fact per line.

    Values are printed with 9 significant digits (enough to tell float32 neighbours apart),
    errors and spacings with 4; inf and nan print as ``inf`` and ``nan``.
    """
    d = description
    regions = dtype_regions(d.dtype)
    spacing = "n/a (beyond the largest binade)" if d.spacing is None else _g(d.spacing, 4)
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


def sample_gradient_magnitudes(n=20000, seed=0):
    """A seeded, synthetic sample of ``n`` gradient magnitudes (float64, all > 0).

    A stand-in for a network's gradients, not measured from a model: spread over many powers
    of two, most of the mass far below 1, a long tail of tiny values. log2 of each magnitude is
    drawn from a mix of two normal distributions: 80 % around 2^-24 (standard deviation 6) and
    20 % around 2^-10 (standard deviation 3). Not measured from a model.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = np.random.default_rng(seed)
    wide = rng.random(n) < 0.8
    log2 = np.where(wide, rng.normal(-24.0, 6.0, n), rng.normal(-10.0, 3.0, n))
    return np.exp2(log2)


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
