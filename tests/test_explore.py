"""fplab.explore, the numbers behind the explorers, checked against torch's own casts, finfo and nextafter."""
import math
import struct
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import ROOT
from fplab.explorers import accumulation, dtypes, formats, gradscaler, loss_scale, softmax

NAMES = formats.DTYPE_NAMES
WIDE = [n for n in NAMES if not n.startswith("float8")]  # torch.nextafter has kernels for these
FLOAT8 = [n for n in NAMES if n.startswith("float8")]


def torch_cast(value, name):
    """The reference: float32 first, then the format, as a float64 Python float."""
    return torch.tensor(value, dtype=torch.float32).to(getattr(torch, name)).double().item()


def next_up(value, name):
    t = torch.tensor(value, dtype=getattr(torch, name))
    return torch.nextafter(t, torch.tensor(math.inf, dtype=t.dtype)).double().item()


def next_down32(value):
    return torch.nextafter(torch.tensor(value, dtype=torch.float32), torch.tensor(0.0)).item()


def float8_values(name):
    """Every finite non-negative value of a float8 format, sorted, decoded from all 256 bit patterns."""
    values = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(getattr(torch, name)).double()
    values = values[torch.isfinite(values) & (values >= 0)]
    return sorted(set(values.tolist()))


def random_values(n=400, seed=0):
    """Signed values spread log-uniformly over the whole float32 range and a bit beyond."""
    rng = np.random.default_rng(seed)
    magnitudes = 10.0 ** rng.uniform(-46, 39, n)
    return (magnitudes * rng.choice([-1.0, 1.0], n)).tolist()


# --- regions -----------------------------------------------------------------------------------


def test_dtype_names_are_the_formats_this_torch_has():
    assert NAMES[:3] == ("float32", "float16", "bfloat16")
    assert set(NAMES[3:]) == {n for n in ("float8_e5m2", "float8_e4m3fn") if hasattr(torch, n)}


@pytest.mark.parametrize("name", NAMES)
def test_regions_agree_with_finfo(name):
    r, info = formats.dtype_regions(name), torch.finfo(getattr(torch, name))
    assert (r.max, r.smallest_normal, r.eps) == (info.max, info.tiny, info.eps)
    assert r.exponent_bits + r.mantissa_bits + 1 == info.bits
    assert r.eps == 2.0**-r.mantissa_bits


@pytest.mark.parametrize("name", WIDE)
def test_smallest_subnormal_is_nextafter_zero(name):
    assert formats.dtype_regions(name).smallest_subnormal == next_up(0.0, name)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_smallest_subnormal_is_the_bit_pattern_one(name):
    assert formats.dtype_regions(name).smallest_subnormal == float8_values(name)[1]


@pytest.mark.parametrize("name", [n for n in NAMES if n != "float32"])
def test_zero_threshold_is_exactly_where_torch_starts_rounding_to_zero(name):
    r = formats.dtype_regions(name)
    assert torch_cast(r.zero_up_to, name) == 0.0  # the tie goes to the even neighbour, 0
    above = torch.nextafter(torch.tensor(r.zero_up_to, dtype=torch.float32), torch.tensor(1.0)).item()
    assert torch_cast(above, name) == r.smallest_subnormal


def test_float32_zero_threshold_holds_for_float64_inputs():
    r = formats.dtype_regions("float32")
    half = torch.tensor(r.zero_up_to, dtype=torch.float64)
    assert half.to(torch.float32).item() == 0.0
    above = torch.nextafter(half, torch.tensor(1.0, dtype=torch.float64))
    assert above.to(torch.float32).item() == r.smallest_subnormal


@pytest.mark.parametrize("name", [n for n in NAMES if n not in formats.SATURATING and n != "float32"])
def test_overflow_threshold_is_exactly_where_torch_starts_giving_inf(name):
    r = formats.dtype_regions(name)
    assert torch_cast(r.overflow_from, name) == math.inf
    assert torch_cast(next_down32(r.overflow_from), name) == r.max
    assert r.saturates_above == math.inf


def test_float32_overflow_threshold_holds_for_float64_inputs():
    r = formats.dtype_regions("float32")
    edge = torch.tensor(r.overflow_from, dtype=torch.float64)
    assert edge.to(torch.float32).item() == math.inf
    below = torch.nextafter(edge, torch.tensor(0.0, dtype=torch.float64))
    assert below.to(torch.float32).item() == r.max


@pytest.mark.skipif("float8_e4m3fn" not in NAMES, reason="this torch has no float8_e4m3fn")
def test_e4m3fn_saturates_instead_of_overflowing():
    r = formats.dtype_regions("float8_e4m3fn")
    assert (r.max, r.overflow_from, r.saturates_above) == (448.0, math.inf, 448.0)
    assert r.saturating
    for value in (449.0, 464.0, 1e5, 3e38):
        assert torch_cast(value, "float8_e4m3fn") == 448.0


# --- describe_value ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_stored_value_and_errors_match_torch_casts(name):
    for value in random_values():
        d = dtypes.describe_value(value, name)
        stored = torch_cast(value, name)
        assert d.stored == stored, (value, name)
        assert d.as_float32 == torch.tensor(value, dtype=torch.float32).item()
        assert d.abs_error == abs(stored - value)
        assert d.rel_error == abs(stored - value) / abs(value)


@pytest.mark.parametrize("name", NAMES)
def test_status_follows_the_stored_value(name):
    info = torch.finfo(getattr(torch, name))
    for value in random_values(seed=1):
        d = dtypes.describe_value(value, name)
        stored, as32 = torch_cast(value, name), abs(torch.tensor(value, dtype=torch.float32).item())
        if math.isinf(stored):
            expected = "overflow"
        elif name in formats.SATURATING and as32 > info.max:
            expected = "saturates"
        elif stored == 0:
            expected = "rounds to zero"
        elif abs(stored) < info.tiny:
            expected = "subnormal"
        else:
            expected = "normal"
        assert d.status == expected, (value, name, d)


BOUNDARIES = [  # value, dtype, stored, status
    (65504.0, "float16", 65504.0, "normal"),
    (65519.99, "float16", 65504.0, "normal"),
    (65520.0, "float16", math.inf, "overflow"),
    (-65520.0, "float16", -math.inf, "overflow"),
    (2.0**-24, "float16", 2.0**-24, "subnormal"),
    (2.0**-25, "float16", 0.0, "rounds to zero"),
    (-(2.0**-25), "float16", -0.0, "rounds to zero"),
    (2.0**-25 * (1 + 2.0**-23), "float16", 2.0**-24, "subnormal"),
    (2.0**-14, "float16", 2.0**-14, "normal"),
    (float(torch.finfo(torch.bfloat16).max), "bfloat16", float(torch.finfo(torch.bfloat16).max), "normal"),
    ((2 - 2.0**-8) * 2.0**127, "bfloat16", math.inf, "overflow"),
    (1e39, "float32", math.inf, "overflow"),
    (1e-46, "float32", 0.0, "rounds to zero"),
    (1e-40, "float32", torch.tensor(1e-40).item(), "subnormal"),
    (0.0, "float16", 0.0, "zero"),
    (448.0, "float8_e4m3fn", 448.0, "normal"),
    (449.0, "float8_e4m3fn", 448.0, "saturates"),
    (1e5, "float8_e4m3fn", 448.0, "saturates"),
    (-1e5, "float8_e4m3fn", -448.0, "saturates"),
    (57344.0, "float8_e5m2", 57344.0, "normal"),
    (61439.0, "float8_e5m2", 57344.0, "normal"),
    (61440.0, "float8_e5m2", math.inf, "overflow"),
    (1e5, "float8_e5m2", math.inf, "overflow"),
]


@pytest.mark.parametrize("value, name, stored, status", BOUNDARIES, ids=lambda x: repr(x))
def test_boundaries(value, name, stored, status):
    if name not in NAMES:
        pytest.skip(f"this torch has no {name}")
    d = dtypes.describe_value(value, name)
    assert d.stored == stored and math.copysign(1, d.stored) == math.copysign(1, stored)
    assert d.stored == torch_cast(value, name)
    assert d.status == status


def test_rounding_to_zero_is_a_total_loss_and_overflow_an_infinite_one():
    assert dtypes.describe_value(2.0**-25, "float16").rel_error == 1.0
    assert dtypes.describe_value(65520.0, "float16").rel_error == math.inf
    assert dtypes.describe_value(0.0, "float16").rel_error == 0.0


# --- spacing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WIDE)
def test_spacing_is_the_gap_to_nextafter(name):
    dtype, info = getattr(torch, name), torch.finfo(getattr(torch, name))
    values = [abs(torch_cast(v, name)) for v in random_values(seed=2)]
    values += [info.tiny, info.tiny / 2, next_up(0.0, name), 1.0, 2.0, 3.0, float(info.max) / 2]
    for x in values:
        if x == 0 or x >= info.max:
            continue
        assert formats.spacing_at(x, name) == next_up(x, name) - x, (name, x)
        assert dtypes.describe_value(x, name).spacing == next_up(x, name) - x
    assert formats.spacing_at(0.0, name) == next_up(0.0, name)
    assert torch.tensor(0.0, dtype=dtype).item() == 0.0


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_spacing_is_the_gap_between_consecutive_bit_patterns(name):
    values = float8_values(name)
    for x, above in zip(values, values[1:]):
        assert formats.spacing_at(x, name) == above - x, (name, x)


def test_spacing_is_none_beyond_the_format():
    assert formats.spacing_at(65536.0, "float16") is None
    assert dtypes.describe_value(1e5, "float16").spacing is None
    assert dtypes.describe_value(1e39, "float32").spacing is None
    assert formats.spacing_at(65535.0, "float16") == 32.0
    # 65520 lies in float16's top binade, but it is stored as inf: no spacing to report there
    assert formats.spacing_at(65520.0, "float16") == 32.0
    assert dtypes.describe_value(65520.0, "float16").spacing is None
    assert dtypes.describe_value(-65520.0, "float16").spacing is None


@pytest.mark.parametrize("name", NAMES)
def test_relative_spacing_curve(name):
    r = formats.dtype_regions(name)
    normal = np.geomspace(r.smallest_normal, r.max, 500)
    curve = formats.relative_spacing_curve(name, normal)
    assert np.all(curve <= r.eps) and np.all(curve > r.eps / 2)
    powers = np.ldexp(1.0, np.arange(math.frexp(r.smallest_normal)[1] - 1, math.frexp(r.max)[1]))
    assert np.all(formats.relative_spacing_curve(name, powers) == r.eps)  # the sawtooth's peaks
    low = formats.relative_spacing_curve(name, [0.0, r.zero_up_to, r.smallest_subnormal, r.max * 1.5])
    assert math.isnan(low[0]) and math.isnan(low[1]) and math.isnan(low[3])
    assert low[2] == 1.0  # at the first subnormal the gap is the whole value
    assert formats.relative_spacing_curve(name, [-1.0])[0] == formats.relative_spacing_curve(name, [1.0])[0]


# --- softmax -----------------------------------------------------------------------------------


def stored_logits(shift, scale, name, base=softmax.DEFAULT_LOGITS):
    z = torch.tensor(base, dtype=torch.float64) * scale + shift
    return z.to(torch.float32).to(getattr(torch, name))


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_softmax_views_match_torch_where_nothing_overflows(name):
    view = softmax.softmax_views(shift=0.5, scale=2.0, dtype_name=name)
    z = stored_logits(0.5, 2.0, name)
    assert view.logits == tuple(z.double().tolist())
    expected = torch.softmax(z.float(), dim=0).double()
    tol = {"float32": 1e-6, "float16": 2e-3, "bfloat16": 2e-2}[name]
    for got in (view.naive_softmax, view.shifted_softmax):
        torch.testing.assert_close(torch.tensor(got, dtype=torch.float64), expected, rtol=tol, atol=tol)
    lse = torch.logsumexp(z.float(), dim=0).item()
    assert view.naive_logsumexp == pytest.approx(lse, rel=tol)
    assert view.shifted_logsumexp == pytest.approx(lse, rel=tol)
    torch.testing.assert_close(torch.tensor(view.reference_softmax, dtype=torch.float64), torch.softmax(z.double(), dim=0))
    assert view.reference_logsumexp == torch.logsumexp(z.double(), dim=0).item()
    assert view.naive_finite and view.shifted_finite and not view.emulated


def test_naive_softmax_breaks_where_exp_overflows_or_underflows():
    big = softmax.softmax_views(shift=1000.0, dtype_name="float32")
    assert all(math.isnan(p) for p in big.naive_softmax) and big.naive_logsumexp == math.inf
    assert big.naive_exp_sum == math.inf
    small = softmax.softmax_views(shift=-200.0, dtype_name="float32")
    assert all(math.isnan(p) for p in small.naive_softmax) and small.naive_logsumexp == -math.inf
    assert small.naive_exp_sum == 0.0
    half = softmax.softmax_views(shift=10.0, dtype_name="float16")
    assert not half.naive_finite
    for view in (big, small, half):
        z = stored_logits(view.shift, 1.0, view.dtype)
        torch.testing.assert_close(torch.tensor(view.shifted_softmax, dtype=torch.float64),
                                   torch.softmax(z.float(), dim=0).double(), rtol=2e-3, atol=2e-3)
        assert view.shifted_logsumexp == pytest.approx(torch.logsumexp(z.float(), dim=0).item(), rel=1e-3)


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_shifted_softmax_stays_finite_over_the_whole_slider_range(name):
    for shift in range(-1000, 1001, 50):
        for scale in (0.0, 1.0, 20.0):
            view = softmax.softmax_views(shift=shift, scale=scale, dtype_name=name)
            assert view.shifted_finite, (name, shift, scale)
            assert sum(view.shifted_softmax) == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_softmax_is_emulated_on_float8_logits(name):
    view = softmax.softmax_views(shift=3.0, dtype_name=name)
    assert view.emulated
    assert view.logits == tuple(stored_logits(3.0, 1.0, name).double().tolist())
    assert view.shifted_finite


# --- loss scaling ------------------------------------------------------------------------------


def wide_sample(n=3000, seed=3):
    """Test magnitudes spread over many powers of two (log2 normal around -20, sd 12)."""
    return np.exp2(np.random.default_rng(seed).normal(-20.0, 12.0, n))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("log2_scale", [-4, 0, 8, 16, 24, 40])
def test_loss_scale_fractions_match_torch_casts(name, log2_scale):
    g = wide_sample()
    view = loss_scale.loss_scale_view(g, log2_scale, name)
    scaled32 = torch.tensor(g * 2.0**log2_scale, dtype=torch.float32)
    stored = scaled32.to(getattr(torch, name)).double()
    info = torch.finfo(getattr(torch, name))
    if name in formats.SATURATING:
        overflow = scaled32.double() > info.max
    else:
        overflow = torch.isinf(stored)
    underflow = stored == 0
    subnormal = ~underflow & ~overflow & (stored < info.tiny)
    assert view.count == 3000
    assert view.underflow_fraction == pytest.approx(underflow.double().mean().item(), abs=1e-12)
    assert view.overflow_fraction == pytest.approx(overflow.double().mean().item(), abs=1e-12)
    assert view.subnormal_fraction == pytest.approx(subnormal.double().mean().item(), abs=1e-12)
    total = view.underflow_fraction + view.subnormal_fraction + view.normal_fraction + view.overflow_fraction
    assert total == pytest.approx(1.0, abs=1e-12)
    r = formats.dtype_regions(name)
    assert view.kept_above * view.scale == r.zero_up_to
    assert view.normal_from * view.scale == r.smallest_normal
    assert view.overflow_from * view.scale == min(r.overflow_from, r.saturates_above)


def test_loss_scale_trades_underflow_for_overflow():
    g = wide_sample()
    views = [loss_scale.loss_scale_view(g, s) for s in range(-8, 41)]
    under = [v.underflow_fraction for v in views]
    over = [v.overflow_fraction for v in views]
    assert under == sorted(under, reverse=True) and over == sorted(over)
    assert under[0] > 0.3 and over[-1] > 0.5
    assert loss_scale.loss_scale_view(g, 0, "bfloat16").underflow_fraction == 0.0


def test_loss_scale_ignores_zeros_and_signs():
    view = loss_scale.loss_scale_view([0.0, -1e-9, 1e-9, 1.0], 0, "float16")
    assert view.count == 3 and view.underflow_fraction == pytest.approx(2 / 3)


# --- reports: the exact text the explorers show ------------------------------------------------


def test_value_report_text():
    assert dtypes.value_report(dtypes.describe_value(0.1, "float16")) == "\n".join([
        "value: 0.1",
        "as float32: 0.100000001",
        "stored in float16: 0.0999755859",
        "absolute error: 2.441e-05",
        "relative error: 0.0002441",
        "spacing (ulp) here: 6.104e-05",
        "status: normal",
        "why: between the smallest normal 6.104e-05 and the largest finite 65504",
    ])
    overflow = dtypes.value_report(dtypes.describe_value(65520.0, "float16")).splitlines()
    assert overflow[2:] == ["stored in float16: inf", "absolute error: inf", "relative error: inf",
                            "spacing (ulp) here: n/a (stored as inf)", "status: overflow",
                            "why: at or above 65520, so it rounds to inf"]
    zero = dtypes.value_report(dtypes.describe_value(2.0**-25, "float16")).splitlines()
    assert zero[-2:] == ["status: rounds to zero",
                         "why: at most half the smallest subnormal (2.98e-08), so it rounds to 0"]


@pytest.mark.skipif("float8_e4m3fn" not in NAMES, reason="this torch has no float8_e4m3fn")
def test_value_report_text_for_saturation():
    lines = dtypes.value_report(dtypes.describe_value(-1000.0, "float8_e4m3fn")).splitlines()
    assert lines[2:] == ["stored in float8_e4m3fn: -448", "absolute error: 552", "relative error: 0.552",
                         "spacing (ulp) here: n/a (beyond the largest binade)", "status: saturates",
                         "why: above the largest finite 448; float8_e4m3fn has no inf and clamps it to -448"]


def test_softmax_report_text():
    text = softmax.softmax_report(softmax.softmax_views(shift=1000.0, dtype_name="float32"))
    assert text == "\n".join([
        "logits = 1 * base + 1000, stored in float32: 998.7, 1000.2, 1001.1, 1002.7",
        "arithmetic: float32",
        "              naive         shifted       float64",
        "sum of exp    inf           1.3023",
        "p[0]          nan           0.01406       0.01406",
        "p[1]          nan           0.06303       0.06303",
        "p[2]          nan           0.155         0.155",
        "p[3]          nan           0.7679        0.7679",
        "logsumexp     inf           1002.96       1002.96",
    ])


def test_loss_scale_report_text():
    text = loss_scale.loss_scale_report(loss_scale.loss_scale_view(gradscaler.model_gradients(), 0))
    assert text == "\n".join([
        "loss scale: 2^0 = 1",
        "lost to zero: 0.04% (1 of 2788)",
        "kept as subnormals: 62.16% (1733 of 2788)",
        "kept as normal numbers: 37.80% (1054 of 2788)",
        "overflow to inf: 0.00% (0 of 2788)",
        "float16 keeps gradients above 2.98e-08, at full precision from 6.104e-05, up to 6.552e+04",
    ])


# --- bad input ---------------------------------------------------------------------------------

BAD_DTYPES = ["float64", "fp16", "Float16", "", None, torch.float16]
BAD_NUMBERS = [math.nan, math.inf, -math.inf, "1.0", None, 1 + 2j]


@pytest.mark.parametrize("bad", BAD_DTYPES, ids=repr)
def test_unknown_dtype_names_raise_value_error(bad):
    calls = [
        lambda: formats.dtype_regions(bad),
        lambda: dtypes.describe_value(1.0, bad),
        lambda: formats.spacing_at(1.0, bad),
        lambda: formats.relative_spacing_curve(bad, [1.0]),
        lambda: softmax.softmax_views(dtype_name=bad),
        lambda: loss_scale.loss_scale_view([1.0], 0, bad),
        lambda: formats.cast([1.0], bad),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="unknown dtype name"):
            call()


@pytest.mark.parametrize("bad", BAD_NUMBERS, ids=repr)
def test_non_finite_values_raise_value_error(bad):
    calls = [
        lambda: dtypes.describe_value(bad, "float16"),
        lambda: formats.spacing_at(bad, "float16"),
        lambda: formats.signed_magnitude(bad),
        lambda: softmax.softmax_views(shift=bad),
        lambda: softmax.softmax_views(scale=bad),
        lambda: loss_scale.loss_scale_view([1.0], bad),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="must be a finite number"):
            call()


@pytest.mark.parametrize("bad", [[1.0, math.nan], [math.inf], [], [[1.0, 2.0]], ["a"]], ids=repr)
def test_bad_arrays_raise_value_error(bad):
    with pytest.raises(ValueError):
        softmax.softmax_views(logits=bad)
    if bad != [[1.0, 2.0]]:  # any shape of magnitudes is fine
        with pytest.raises(ValueError):
            loss_scale.loss_scale_view(bad, 0)
    if bad in ([1.0, math.nan], [math.inf]):
        with pytest.raises(ValueError):
            formats.relative_spacing_curve("float16", bad)


def test_other_bad_input():
    with pytest.raises(ValueError, match="no non-zero"):
        loss_scale.loss_scale_view([0.0, 0.0], 0)
    with pytest.raises(ValueError, match="log2_scale"):
        loss_scale.loss_scale_view([1.0], 5000)
    with pytest.raises(ValueError, match="log10_magnitude"):
        formats.signed_magnitude(400)


def test_explore_imports_no_plotting_or_widget_library():
    code = "import sys, fplab, fplab.explorers.formats; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --- bits --------------------------------------------------------------------------------------

HAND_DERIVED = [  # value, dtype, pattern worked out by hand from the IEEE layout
    (1.0, "float32", 0x3F800000), (-0.1, "float32", 0xBDCCCCCD), (-2.0, "float32", 0xC0000000),
    (1.0, "float16", 0x3C00), (65504.0, "float16", 0x7BFF), (2.0**-24, "float16", 0x0001),
    (2.0**-14, "float16", 0x0400), (-0.0, "float16", 0x8000), (0.1, "float16", 0x2E66),
    (1.0, "bfloat16", 0x3F80), (-0.1, "bfloat16", 0xBDCD),
    (448.0, "float8_e4m3fn", 0x7E), (2.0**-9, "float8_e4m3fn", 0x01), (1.0, "float8_e4m3fn", 0x38),
    (57344.0, "float8_e5m2", 0x7B), (2.0**-16, "float8_e5m2", 0x01), (1.0, "float8_e5m2", 0x3C),
]


@pytest.mark.parametrize("value, name, pattern", HAND_DERIVED, ids=repr)
def test_bit_patterns_match_hand_derived_ones(value, name, pattern):
    if name not in NAMES:
        pytest.skip(f"this torch has no {name}")
    assert dtypes.bit_pattern(value, name) == pattern
    assert dtypes.pattern_value(pattern, name) == torch_cast(value, name)


def test_float32_and_float16_patterns_match_struct_and_numpy():
    for value in random_values(300, seed=4):
        if abs(value) > 3e38:
            continue
        assert dtypes.bit_pattern(value, "float32") == struct.unpack(">I", struct.pack(">f", value))[0]
        with np.errstate(over="ignore"):  # numpy warns where float16 overflows to inf, as torch does silently
            half = np.array([value], dtype=np.float32).astype(np.float16)  # the same float32 -> float16 rounding
        assert dtypes.bit_pattern(value, "float16") == int(half.view(np.uint16)[0]), value


def test_pattern_values_and_kinds_match_numpy_float16():
    patterns = np.arange(0, 65536, 7, dtype=np.uint16)
    reference = patterns.view(np.float16).astype(np.float64)
    tiny = float(np.finfo(np.float16).tiny)
    kinds = set()
    for pattern, expected in zip(patterns.tolist(), reference.tolist()):
        fields = dtypes.bit_fields(pattern, "float16")
        kinds.add(fields.kind)
        if math.isnan(expected):
            assert math.isnan(fields.value) and fields.kind == "nan"
            continue
        assert fields.value == expected
        kind = ("inf" if math.isinf(expected) else "zero" if expected == 0
                else "subnormal" if abs(expected) < tiny else "normal")
        assert fields.kind == kind, pattern
    assert kinds == set(dtypes.BIT_KINDS)


@pytest.mark.parametrize("name", NAMES)
def test_fields_decode_to_the_value(name):
    """sign x 2^(e - bias) x 1.f, or 2^(1 - bias) x 0.f for subnormals, recomputed here with ldexp."""
    exponent_bits, mantissa_bits = {"float32": (8, 23), "float16": (5, 10), "bfloat16": (8, 7),
                                    "float8_e5m2": (5, 2), "float8_e4m3fn": (4, 3)}[name]
    bias = 2 ** (exponent_bits - 1) - 1
    assert dtypes.exponent_bias(name) == bias and dtypes.bit_width(name) == 1 + exponent_bits + mantissa_bits
    for value in random_values(200, seed=5) + [0.0]:
        f = dtypes.bits_of(value, name)
        if f.kind == "normal":
            decoded = math.ldexp(1 + f.fraction / 2**mantissa_bits, f.exponent - bias)
        elif f.kind in ("subnormal", "zero"):
            decoded = math.ldexp(f.fraction / 2**mantissa_bits, 1 - bias)
        else:
            assert math.isinf(f.value) or math.isnan(f.value)
            continue
        assert (-decoded if f.sign else decoded) == f.value == torch_cast(value, name)
        assert int(f.bits, 2) == f.pattern and len(f.bits) == f.width


@pytest.mark.skipif("float8_e4m3fn" not in NAMES, reason="this torch has no float8_e4m3fn")
def test_e4m3fn_has_only_nan_at_the_top():
    assert dtypes.bit_fields(0x7F, "float8_e4m3fn").kind == "nan"
    assert dtypes.bit_fields(0x7E, "float8_e4m3fn").kind == "normal"
    assert dtypes.bit_fields(0x78, "float8_e4m3fn").value == 256.0  # exponent all ones is still a number
    assert dtypes.bit_fields(0x7C, "float8_e5m2").kind == "inf"


def test_flip_bit():
    one = dtypes.bit_pattern(1.0, "float16")
    assert dtypes.pattern_value(dtypes.flip_bit(one, 0, "float16"), "float16") == -1.0
    assert dtypes.pattern_value(dtypes.flip_bit(one, 1, "float16"), "float16") == math.inf  # 0x7C00
    assert dtypes.pattern_value(dtypes.flip_bit(one, 15, "float16"), "float16") == 1 + 2.0**-10
    assert dtypes.flip_bit(dtypes.flip_bit(one, 7, "float16"), 7, "float16") == one
    for bad in (-1, 16, 1.5, True):
        with pytest.raises(ValueError, match="index"):
            dtypes.flip_bit(one, bad, "float16")


@pytest.mark.parametrize("name", WIDE)
def test_step_value_is_nextafter(name):
    dtype = getattr(torch, name)
    for value in random_values(150, seed=6) + [0.0, -0.0, 1.0]:
        stored = torch.tensor(value, dtype=torch.float32).to(dtype)
        for direction, target in ((1, math.inf), (-1, -math.inf)):
            expected = torch.nextafter(stored, torch.tensor(target, dtype=dtype)).item()
            got = dtypes.step_value(value, name, direction)
            assert got == expected or (math.isnan(got) and math.isnan(expected)), (name, value, direction)


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_step_value_walks_every_value(name):
    values = float8_values(name)
    for below, above in zip(values, values[1:]):
        assert dtypes.step_value(below, name, 1) == above
        assert dtypes.step_value(above, name, -1) == below
        assert dtypes.step_value(-above, name, 1) == -below
    top = dtypes.step_value(values[-1], name, 1)
    assert math.isnan(top) if name in formats.SATURATING else top == math.inf


def test_bits_report_text():
    assert dtypes.bits_report(dtypes.bits_of(0.1, "float16")) == "\n".join([
        "float16 bits: 0 01011 1001100110  (0x2e66)",
        "sign 0 | exponent field 01011 = 11, bias 15 | fraction 1001100110",
        "normal: (-1)^0 × 2^(11 - 15) × 1.1001100110₂ = 0.0999755859375",
    ])
    assert dtypes.bits_report(dtypes.bit_fields(0x8001, "float16")).splitlines()[-1] == (
        "subnormal: (-1)^1 × 2^(1 - 15) × 0.0000000001₂ = -5.960464477539063e-08")
    assert dtypes.bits_report(dtypes.bit_fields(0x7C00, "float16")).splitlines()[-1] == (
        "inf: exponent all ones, fraction 0 = inf")
    assert dtypes.bits_report(dtypes.bit_fields(0x7E01, "float16")).splitlines()[-1] == (
        "nan: exponent all ones, fraction not 0 = nan")


# --- accumulation ------------------------------------------------------------------------------


def torch_running_sum(terms, name, kahan=False):
    """The reference: every operation on 0-dim tensors of the format, as torch does it."""
    dtype = getattr(torch, name)
    total, compensation, out = torch.zeros((), dtype=dtype), torch.zeros((), dtype=dtype), []
    for term in torch.tensor(terms, dtype=torch.float64).to(dtype):
        if kahan:
            y = term - compensation
            t = total + y
            compensation = (t - total) - y
            total = t
        else:
            total = total + term
        out.append(total.item())
    return out


@pytest.mark.parametrize("data", accumulation.ACCUMULATION_DATA)
@pytest.mark.parametrize("name", formats.ACCUMULATION_DTYPES)
def test_naive_and_kahan_running_sums_match_torch_arithmetic(data, name):
    terms = accumulation.accumulation_terms(data, name, 3000)
    assert terms.tolist() == torch.tensor(terms).to(getattr(torch, name)).double().tolist()
    assert accumulation.running_sums(terms, name, "naive").tolist() == torch_running_sum(terms, name)
    assert accumulation.running_sums(terms, name, "kahan").tolist() == torch_running_sum(terms, name, kahan=True)


@pytest.mark.parametrize("name", formats.ACCUMULATION_DTYPES)
def test_stochastic_round_picks_a_neighbour_with_the_right_odds(name):
    dtype = getattr(torch, name)
    for value in [1.0, 3.3, 1000.7, -0.3, 2.0**-30]:
        stored = torch.tensor(value, dtype=torch.float64).to(torch.float32).to(dtype)
        below = stored if stored.double().item() <= value else torch.nextafter(stored, torch.tensor(-math.inf, dtype=dtype))
        above = torch.nextafter(below, torch.tensor(math.inf, dtype=dtype))
        lo, hi = below.double().item(), above.double().item()
        draws = (np.arange(1000) + 0.5) / 1000
        rounded = [formats.stochastic_round(value, name, u) for u in draws]
        assert set(rounded) <= {lo, hi}
        away = hi if value > 0 else lo  # away from zero
        expected_away = round(1000 * abs(value - (lo if value > 0 else hi)) / (hi - lo))
        assert abs(sum(r == away for r in rounded) - expected_away) <= 1, (name, value)
    exact = float(torch.tensor(1.5, dtype=dtype).item())
    assert formats.stochastic_round(exact, name, 0.999) == exact


def test_accumulate_float16_stagnation():
    run = accumulation.accumulate("1e-4 repeated", "float16")
    term = float(torch.tensor(1e-4).half())
    i = int(np.flatnonzero(run.ns == 10_000)[0])
    assert run.totals["naive"][i] == 0.25
    assert (torch.tensor(0.25).half() + torch.tensor(term).half()).item() == 0.25  # the total cannot move
    assert run.exact[i] == 10_000 * term
    last = run.last_growth["naive"][i]
    assert torch_running_sum([term] * last, "float16")[-1] == 0.25 > torch_running_sum([term] * (last - 1), "float16")[-1]
    assert run.last_growth["kahan"][i] > 9_900 and run.relative_error("kahan")[i] < 1e-3
    assert run.relative_error("stochastic")[i] < 0.01


@pytest.mark.parametrize("data", accumulation.ACCUMULATION_DATA)
def test_accumulate_pairwise_is_torch_sum_and_exact_is_exact(data):
    run = accumulation.accumulate(data, "bfloat16")
    terms = accumulation.accumulation_terms(data, "bfloat16")
    for j in (0, 50, len(run.ns) - 1):
        k = int(run.ns[j])
        assert run.totals["pairwise"][j] == torch.tensor(terms[:k]).to(torch.bfloat16).sum().item()
        assert run.exact[j] == math.fsum(terms[:k])
    assert run.unit_roundoff == 2.0**-8 and run.ns[0] == 1 and run.ns[-1] == 10_000


def test_accumulation_report_text():
    text = accumulation.accumulation_report(accumulation.accumulate("1e-4 repeated", "float16"), 10_000)
    assert text.splitlines()[:4] == [
        "1e-4 repeated in float16, n = 10000: exact sum 1.00016594",
        "u = 0.0004883 (half of eps); n·u = 4.883, √n·u = 0.04883",
        "method      total         rel. error  last term that changed the total",
        "naive       0.25          0.75        2181",
    ]
    with pytest.raises(ValueError, match="checkpoints"):
        accumulation.accumulation_report(accumulation.accumulate("1e-4 repeated", "float16"), 7777)
    with pytest.raises(ValueError, match="data"):
        accumulation.accumulation_terms("ones", "float16")
    for call in (lambda: accumulation.accumulate("1e-4 repeated", "float8_e5m2"),
                 lambda: accumulation.running_sums([1.0], "float8_e5m2", "naive"),
                 lambda: formats.stochastic_round(1.0, "float64", 0.5)):
        with pytest.raises(ValueError, match="dtype must be one of"):
            call()


# --- GradScaler run ----------------------------------------------------------------------------

LAYER_SIZES = [16 * 32 + 32, 32 * 32 + 32, 32 * 32 + 32, 32 * 4 + 4]


def test_gradscaler_run_follows_gradscalers_rule():
    """Skipped step: scale x backoff; growth_interval clean steps in a row: scale x 2; else unchanged."""
    run = gradscaler.gradscaler_run(2.0**24, 20, 0.5)
    assert run.scales[0] == 2.0**24 and run.skipped[0]
    clean = 0
    for i in range(len(run.scales) - 1):
        if run.skipped[i]:
            expected, clean = run.scales[i] * 0.5, 0
        else:
            clean += 1
            expected = run.scales[i] * 2 if clean == 20 else run.scales[i]
            clean %= 20
        assert run.scales[i + 1] == expected, i
    assert run.losses[-1] < run.losses[0] / 10  # it trains


def test_gradscaler_run_counts_every_gradient_once():
    run = gradscaler.gradscaler_run()
    assert run.classes.sum(axis=2).tolist() == [LAYER_SIZES] * gradscaler.SCALER_STEPS
    finite_nonzero = run.classes[:, :, 1] + run.classes[:, :, 2]
    assert np.array_equal(run.counts.sum(axis=2), finite_nonzero)
    assert np.array_equal(run.skipped, run.classes[:, :, 3].sum(axis=1) > 0)
    again = gradscaler.gradscaler_run.__wrapped__()
    assert np.array_equal(again.scales, run.scales) and np.array_equal(again.counts, run.counts)
    assert gradscaler.model_gradients().size == sum(LAYER_SIZES)


def test_scaler_reports():
    run = gradscaler.gradscaler_run(2.0**24, 2000, 0.5)
    assert gradscaler.scaler_run_report(run).splitlines()[:2] == [
        "init_scale 2^24, growth_interval 2000, backoff_factor 0.5, growth_factor 2",
        "skipped steps: 4 of 300 (step 0, 1, 2, 3)"]
    lines = gradscaler.scaler_step_report(run, 0).splitlines()
    assert lines[0].startswith("step 0: scale 2^24 = 16777216, loss 1.383, skipped")
    assert lines[-1] == ("at this scale float16 keeps |gradient| above 1.776e-15, in full from 3.638e-12, "
                         "below 0.003905")
    for bad in (-1, 300, 1.5, True):
        with pytest.raises(ValueError, match="step"):
            gradscaler.scaler_step_report(run, bad)
    with pytest.raises(ValueError):
        gradscaler.gradscaler_run(2.0**16, 20, 1.5)


# --- environment check (fplab.device) ----------------------------------------------------------


def test_version_check_compares_installed_versions_with_the_pins(tmp_path):
    from importlib import metadata

    from fplab.device import CHECKED_PACKAGES, version_check

    rows = version_check().splitlines()
    assert [row.split()[0] for row in rows] == list(CHECKED_PACKAGES)
    torch_row = rows[0].split()
    assert torch_row[1] == metadata.version("torch") and torch_row[3] == "2.13.0" and torch_row[4] == "ok"
    fake = tmp_path / "pyproject.toml"
    fake.write_text('[project]\ndependencies = ["torch==1.0.0", "numpy>=1"]\n')
    rows = version_check(fake).splitlines()
    assert rows[0].split()[3:5] == ["1.0.0", "DIFFERS:"]
    assert rows[1].split()[2:5] == ["pinned", "not", "pinned"]
    assert version_check(tmp_path / "missing.toml").startswith("no pins to compare with")
