"""fplab.widgets: build each explorer, move its controls from Python, check the exact text it shows."""
import html
import math
import subprocess
import sys

import ipywidgets
import pytest

from conftest import ROOT
from fplab.explorers import accumulation, controls, dtypes, formats, gradscaler, loss_scale, softmax

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def not_grading(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


def shown(explorer):
    """The readout's text as the browser shows it, checked against the ``text`` attribute."""
    value = explorer.readout.value
    assert value.startswith('<pre class="fplab-readout">') and value.endswith("</pre>")
    text = html.unescape(value[len('<pre class="fplab-readout">'):-len("</pre>")])
    assert text == explorer.text
    return text


def value_text(value, name="float16"):
    """What the dtype explorer shows for x = ``value``: the value report, then the bits."""
    return (dtypes.value_report(dtypes.describe_value(value, name)) + "\n\n"
            + dtypes.bits_report(dtypes.bits_of(value, name)))


def lines(explorer):
    return shown(explorer).splitlines()


def test_dtype_explorer_shows_the_value_report_and_follows_every_control():
    ex = dtypes.dtype_explorer()
    assert isinstance(ex, ipywidgets.VBox) and set(ex.controls) == {"decade", "fraction", "sign", "dtype", "typed"}
    assert shown(ex) == value_text(0.1)
    assert bytes(ex.image.value).startswith(PNG)
    first_png = bytes(ex.image.value)

    ex.controls["decade"].value = 4
    ex.controls["fraction"].value = 0.82  # 66069: past 65520
    assert shown(ex) == value_text(10**4.82)
    assert "status: overflow" in lines(ex)
    assert bytes(ex.image.value).startswith(PNG) and bytes(ex.image.value) != first_png

    ex.controls["sign"].value = True
    assert lines(ex)[2] == "stored in float16: -inf"

    ex.controls["dtype"].value = "bfloat16"
    assert shown(ex) == value_text(-(10**4.82), "bfloat16")
    assert lines(ex)[2] == "stored in bfloat16: -66048"

    ex.controls["sign"].value = False
    ex.controls["decade"].value = -8
    ex.controls["fraction"].value = 0.4  # 2.5e-8: below half of float16's first subnormal
    ex.controls["dtype"].value = "float16"
    assert lines(ex)[6] == "status: rounds to zero"
    ex.controls["decade"].value = -7
    ex.controls["fraction"].value = 0.0  # 1e-7
    assert lines(ex)[6] == "status: subnormal"
    assert ex.result.status == "subnormal" and ex.result.value == 1e-7


def test_typing_a_value_moves_the_sliders():
    ex = dtypes.dtype_explorer()
    ex.controls["typed"].value = "65520"
    assert shown(ex) == value_text(65520.0)
    assert (ex.controls["decade"].value, ex.controls["fraction"].value) == (4, 0.82)  # log10 65520 = 4.8164
    ex.controls["fraction"].value = 0.8200000000000001  # the browser echoes the slider back
    assert shown(ex) == value_text(65520.0)  # x stays exact, not 10^4.82
    ex.controls["typed"].value = "\u22121e-7"  # a unicode minus, as some keyboards type it
    assert shown(ex) == value_text(-1e-7) and ex.controls["sign"].value is True
    before = shown(ex)
    for bad in ("abc", "nan", "1e60"):
        ex.controls["typed"].value = bad
        assert ex.note.value.startswith(f"could not use {bad!r}") and shown(ex) == before


def test_the_typed_box_empties_when_another_control_moves_x():
    """The box shows only an x typed there: after a slider, the sign, a bit or a step moves x, it
    is empty (its placeholder shows), never the old number beside a new x."""
    ex = dtypes.dtype_explorer()
    box = ex.controls["typed"]
    for move in (lambda: setattr(ex.controls["decade"], "value", 2), lambda: setattr(ex.controls["sign"], "value", True),
                 lambda: ex.bits[15].click(), lambda: ex.steppers["down"].click()):
        box.value = "65504"
        assert ex.result.value == 65504.0
        move()
        assert box.value == "" and ex.result.value != 65504.0
    box.value = "65504"
    ex.controls["dtype"].value = "bfloat16"  # x stays, and so does the box
    assert box.value == "65504" and ex.result.value == 65504.0


def test_bit_buttons_flip_the_stored_bits():
    ex = dtypes.dtype_explorer()  # 0.1 -> float16 0x2e66
    assert [b.description for b in ex.children[2].children] == list("0010111001100110")
    ex.bits[0].click()  # the sign
    assert shown(ex) == value_text(-0.0999755859375) and ex.controls["sign"].value is True
    ex.bits[15].click()  # the last fraction bit: 0xae66 -> 0xae67
    assert lines(ex)[9] == "float16 bits: 1 01011 1001100111  (0xae67)"
    assert ex.result.value == dtypes.pattern_value(0xAE67, "float16")
    assert (ex.controls["decade"].value, ex.controls["fraction"].value) == (-1, 0.0)
    ex.bits[1].click()  # exponent 01011 -> 11011: 2^12 x 1.1001100111
    assert ex.result.value == -6556.0 and (ex.controls["decade"].value, ex.controls["fraction"].value) == (3, 0.82)
    ex.controls["dtype"].value = "float32"
    assert len(ex.children[2].children) == 32


def test_next_buttons_step_through_representable_numbers():
    ex = dtypes.dtype_explorer()
    ex.controls["typed"].value = "65504"
    ex.steppers["up"].click()
    assert ex.note.value == "the next value above gives inf, which has no place on the slider: x stays"
    assert ex.result.value == 65504.0
    ex.steppers["down"].click()
    assert ex.result.value == 65472.0  # float16's spacing below 65504 is 32
    ex.controls["typed"].value = "0"
    ex.steppers["up"].click()
    assert ex.result.value == 2.0**-24 and lines(ex)[6] == "status: subnormal"


@pytest.mark.skipif("float8_e4m3fn" not in formats.DTYPE_NAMES, reason="no float8_e4m3fn in this torch")
def test_dtype_explorer_saturation_text():
    ex = dtypes.dtype_explorer(dtype="float8_e4m3fn", log10_magnitude=3.0)
    assert lines(ex)[2:8] == [
        "stored in float8_e4m3fn: 448", "absolute error: 552", "relative error: 0.552",
        "spacing (ulp) here: n/a (beyond the largest binade)", "status: saturates",
        "why: above the largest finite 448; float8_e4m3fn has no inf and clamps it to 448"]


def test_slider_values_are_read_at_the_slider_step():
    """A browser sends values such as 0.9900000000000001 for a 0.01 step: the text must not change."""
    ex = dtypes.dtype_explorer()
    ex.controls["fraction"].value = 0.0100000000000001
    assert shown(ex) == value_text(10**-0.99)
    sm = softmax.softmax_explorer()
    sm.controls["scale"].value = 1.2000000000000002
    assert sm.result.scale == 1.2


def test_returning_to_a_dtype_gives_the_same_picture():
    ex = dtypes.dtype_explorer()
    before = bytes(ex.image.value)
    ex.controls["dtype"].value = "float32"
    ex.controls["dtype"].value = "float16"
    assert bytes(ex.image.value) == before


def test_explorers_sharing_backgrounds_draw_what_a_fresh_one_draws(monkeypatch):
    ex = dtypes.dtype_explorer(dtype="bfloat16", log10_magnitude=2.0)  # backgrounds cached by now
    shared = bytes(ex.image.value)
    monkeypatch.setattr(dtypes, "_DTYPE_BACKGROUNDS", {})  # a fresh cache: this one draws everything
    fresh = dtypes.dtype_explorer(dtype="bfloat16", log10_magnitude=2.0)
    assert bytes(fresh.image.value) == shared


def test_softmax_explorer_shows_naive_and_shifted_side_by_side():
    ex = softmax.softmax_explorer()
    assert set(ex.controls) == {"shift", "scale", "dtype"}
    assert list(ex.controls["dtype"].options) == ["float32", "float16", "bfloat16"]
    assert shown(ex) == softmax.softmax_report(softmax.softmax_views(shift=0.0, scale=1.0))
    ex.controls["shift"].value = 1000
    assert shown(ex) == softmax.softmax_report(softmax.softmax_views(shift=1000.0, dtype_name="float32"))
    rows = shown(ex).splitlines()
    assert rows[4] == "p[0]          nan           0.01406       0.01406"
    assert rows[-1] == "logsumexp     inf           1002.96       1002.96"
    ex.controls["shift"].value = 0
    ex.controls["dtype"].value = "float16"
    ex.controls["scale"].value = 5.0
    assert shown(ex) == softmax.softmax_report(softmax.softmax_views(scale=5.0, dtype_name="float16"))
    assert bytes(ex.image.value).startswith(PNG)


def test_loss_scale_explorer_counts_what_float16_loses():
    ex = loss_scale.loss_scale_explorer()
    assert set(ex.controls) == {"log2_scale", "dtype"}
    g = gradscaler.model_gradients()
    assert shown(ex) == loss_scale.loss_scale_report(loss_scale.loss_scale_view(g, 0))
    ex.controls["log2_scale"].value = 16
    assert shown(ex).splitlines()[:2] == ["loss scale: 2^16 = 65536", "lost to zero: 0.00% (0 of 2788)"]
    ex.controls["dtype"].value = "bfloat16"
    assert shown(ex) == loss_scale.loss_scale_report(loss_scale.loss_scale_view(g, 16, "bfloat16"))
    assert bytes(ex.image.value).startswith(PNG)


def test_loss_scale_explorer_takes_other_magnitudes():
    ex = loss_scale.loss_scale_explorer(grad_magnitudes=[1e-9, 1e-3, 0.0])
    assert shown(ex).splitlines()[1] == "lost to zero: 50.00% (1 of 2)"


@pytest.mark.parametrize("control, build", [("fraction", dtypes.dtype_explorer),
                                            ("shift", softmax.softmax_explorer),
                                            ("scale", softmax.softmax_explorer)])
def test_a_nan_slider_value_raises_value_error_and_keeps_the_view(control, build):
    ex = build()
    before, png = shown(ex), bytes(ex.image.value)
    with pytest.raises(ValueError, match="must be a finite number"):
        ex.controls[control].value = math.nan
    assert shown(ex) == before and bytes(ex.image.value) == png


def test_an_infinite_slider_value_is_clamped_by_the_slider():
    ex = dtypes.dtype_explorer()
    ex.controls["fraction"].value = math.inf  # ipywidgets clamps to the slider's max
    assert ex.controls["fraction"].value == 0.99
    assert shown(ex) == value_text(10**-0.01)


BAD_CALLS = [
    (dtypes.dtype_explorer, {"dtype": "float64"}, "unknown dtype name"),
    (dtypes.dtype_explorer, {"dtype": "fp16"}, "unknown dtype name"),
    (dtypes.dtype_explorer, {"log10_magnitude": math.nan}, "finite"),
    (dtypes.dtype_explorer, {"log10_magnitude": math.inf}, "finite"),
    (dtypes.dtype_explorer, {"log10_magnitude": 100}, "must lie in"),
    (softmax.softmax_explorer, {"dtype": "float64"}, "unknown dtype name"),
    (softmax.softmax_explorer, {"dtype": "float8_e5m2"}, "must be one of"),
    (softmax.softmax_explorer, {"shift": math.inf}, "finite"),
    (softmax.softmax_explorer, {"scale": math.nan}, "finite"),
    (softmax.softmax_explorer, {"logits": [1.0, math.nan]}, "finite"),
    (loss_scale.loss_scale_explorer, {"dtype": "int8"}, "unknown dtype name"),
    (loss_scale.loss_scale_explorer, {"log2_scale": math.nan}, "finite"),
    (loss_scale.loss_scale_explorer, {"log2_scale": 2.5}, "whole number"),
    (loss_scale.loss_scale_explorer, {"grad_magnitudes": [math.inf]}, "finite"),
    (loss_scale.loss_scale_explorer, {"grad_magnitudes": [0.0]}, "no non-zero"),
    (accumulation.accumulation_explorer, {"dtype": "float8_e5m2"}, "must be one of"),
    (accumulation.accumulation_explorer, {"data": "ones"}, "data must be one of"),
    (accumulation.accumulation_explorer, {"n": 7777}, "n must be one of"),
    (gradscaler.gradscaler_explorer, {"log2_init_scale": 40}, "must lie in"),
    (gradscaler.gradscaler_explorer, {"log2_init_scale": 2.5}, "whole number"),
    (gradscaler.gradscaler_explorer, {"growth_interval": 3}, "growth_interval must be one of"),
    (gradscaler.gradscaler_explorer, {"backoff_factor": 1.5}, "backoff_factor must be one of"),
    (gradscaler.gradscaler_explorer, {"step": 300}, "must lie in"),
]


@pytest.mark.parametrize("build, kwargs, message", BAD_CALLS,
                         ids=lambda x: x.__name__ if callable(x) else repr(x))  # the same id in every process
@pytest.mark.parametrize("grading", ["", "autograde"])
def test_bad_arguments_raise_value_error_also_during_grading(build, kwargs, message, grading, monkeypatch):
    if grading:
        monkeypatch.setenv("NBGRADER_EXECUTION", grading)
    with pytest.raises(ValueError, match=message):
        build(**kwargs)


EXPLORERS = [dtypes.dtype_explorer, softmax.softmax_explorer, loss_scale.loss_scale_explorer,
             accumulation.accumulation_explorer, gradscaler.gradscaler_explorer]


@pytest.mark.parametrize("build", EXPLORERS)
def test_every_explorer_skips_itself_during_grading(build, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    result = build()
    assert type(result) is ipywidgets.Label
    assert result.value == controls.SKIP_MESSAGE.format(name=build.__name__)


def run_python(code, **env):
    import os

    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "agg", **env}, check=True).stdout.strip()


def test_grading_and_bad_input_never_import_matplotlib():
    code = """
import sys
import fplab
assert 'matplotlib' not in sys.modules and 'ipywidgets' not in sys.modules
from fplab.explorers import accumulation, controls, dtypes, gradscaler, loss_scale, softmax
for call in (lambda: dtypes.dtype_explorer(dtype="float64"), lambda: softmax.softmax_explorer(shift=float("nan"))):
    try:
        call()
    except ValueError:
        pass
built = [dtypes.dtype_explorer(), softmax.softmax_explorer(), loss_scale.loss_scale_explorer(),
         accumulation.accumulation_explorer(), gradscaler.gradscaler_explorer(), controls.evidence(lambda: print("x"))]
print(*{type(b).__name__ for b in built}, 'matplotlib' in sys.modules, gradscaler.gradscaler_run.cache_info().currsize,
      accumulation.accumulate.cache_info().currsize)
"""
    assert run_python(code, NBGRADER_EXECUTION="validate") == "Label False 0 0"  # nothing drew, trained or summed


def test_bench_widgets_prints_a_row_per_control():
    import io

    from autograder.bench.widgets import bench_widgets
    from autograder.cli import parser

    assert parser().parse_args(["bench", "--widgets"]).widgets
    out = io.StringIO()
    slowest = bench_widgets(out, moves=2, end_to_end=False)  # the browser part is timed in its own run
    rows = out.getvalue().splitlines()
    assert rows[1].split() == ["explorer", "control", "moves", "p50", "ms", "p95", "ms", "max", "ms", "p95", "cpu"]
    controls = [row[23:51].strip() for row in rows[2:-1] if row[0] == " "]
    assert controls == ["decade", "fraction", "dtype", "sign", "typed", "bit click", "next up/down",
                        "shift", "scale", "dtype", "log2_scale", "dtype", "n", "data", "dtype", "step",
                        "retrain: log2_init_scale", "retrain: growth_interval", "retrain: backoff_factor"]
    assert [row.split()[0] for row in rows[2:-1] if row[0] != " "] == [f.__name__ for f in EXPLORERS]
    assert slowest > 0 and rows[-1].startswith("slowest p95 control move:")


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("0[1-4]_*_explorer.ipynb")), ids=lambda p: p.name)
def test_the_evidence_code_starts_folded(path):
    """An evidence cell's code states the answer (its asserts, what it prints): JupyterLab shows it
    folded (``jupyter.source_hidden``) until the learner opens it; the folded answer comes first."""
    import nbformat

    cells = nbformat.read(path, as_version=4).cells
    evidence_cells = [i for i, c in enumerate(cells) if c.cell_type == "code" and "\nevidence(" in c.source]
    assert evidence_cells
    for i in evidence_cells:
        assert cells[i].metadata.get("jupyter", {}).get("source_hidden") is True, (path.name, i)
        assert "<summary>Answer</summary>" in cells[i - 1].source, (path.name, i)
