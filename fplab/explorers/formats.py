"""The floating-point formats the explorers show: their layouts, limits and regions, torch's casts, the
spacing of neighbouring values, and rounding to a format (nearest, stochastic). No matplotlib or
ipywidgets here: graded notebooks use these.
"""
import math
import struct
from dataclasses import dataclass

import numpy as np
import torch


# name: (exponent bits, fraction bits). float8 only where this torch has it.
LAYOUT = {
    "float32": (8, 23),
    "float16": (5, 10),
    "bfloat16": (8, 7),
    "float8_e5m2": (5, 2),
    "float8_e4m3fn": (4, 3),
}


DTYPE_NAMES = tuple(name for name in LAYOUT if hasattr(torch, name))
"""The dtype names every function here accepts, widest first."""


SATURATING = frozenset({"float8_e4m3fn"})
"""Formats with no infinity: torch's cast clamps anything too large to the largest finite value."""


STATUSES = ("zero", "normal", "subnormal", "rounds to zero", "overflow", "saturates")


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


def torch_dtype(dtype_name):
    return getattr(torch, check_dtype_name(dtype_name))


def cast(values, dtype_name):
    """``values`` rounded to ``dtype_name`` the way torch does it (float32 first), as float64.

    Accepts a number or an array-like; returns a NumPy float64 array of the same shape. Every
    value of these formats is exactly representable in float64, so nothing is rounded on the
    way back.
    """
    dtype = torch_dtype(dtype_name)
    as32 = torch.as_tensor(np.asarray(values, dtype=np.float64)).to(torch.float32)
    return as32.to(dtype).to(torch.float32).to(torch.float64).numpy()


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
    dtype = torch_dtype(dtype_name)
    exponent_bits, mantissa_bits = LAYOUT[dtype_name]
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


def spacing_of(regions, magnitudes):
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
    gap = float(spacing_of(regions, check_finite("magnitude", magnitude)))
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
        relative = spacing_of(regions, m) / m
    return np.where((m > regions.zero_up_to) & (m <= regions.max), relative, np.nan)


def short_number(x, digits):
    return f"{x:.{digits}g}"


ACCUMULATION_DTYPES = ("float16", "bfloat16", "float32")


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


class Format:
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
    fmt, magnitude = Format(dtype_name), abs(check_finite("x", x))
    nearest = fmt.round(magnitude)
    below = fmt.bits(nearest) - (nearest > magnitude)
    lower, upper = fmt.value(below), fmt.value(below + 1)
    if lower == magnitude:
        return math.copysign(lower, x)
    return math.copysign(upper if u < (magnitude - lower) / (upper - lower) else lower, x)
