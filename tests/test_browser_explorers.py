"""Real-browser checks of the self-study explorers: every new control, moved as a learner would,
reads back the exact text fplab.explore computes; evidence stays hidden until asked for."""
import re

import pytest

from fplab.explorers import accumulation, dtypes, gradscaler, loss_scale, softmax
from browsing import ARTIFACTS, BROWSER_TEST as pytestmark, open_notebook, run_all, wait_all_ran  # noqa: F401


READOUT = "pre.fplab-readout"


def wait_text(page, selector, index, expected, timeout=60_000):
    """Wait until the index-th element matching selector shows exactly ``expected``."""
    page.wait_for_function(
        "([selector, index, expected]) => document.querySelectorAll(selector)[index]?.textContent === expected",
        arg=[selector, index, expected], timeout=timeout)


def run_notebook(page, lab, path):
    open_notebook(page, lab, path)
    run_all(page)
    wait_all_ran(page)
    page.locator(READOUT).first.wait_for()
    page.locator("img.widget-image").first.wait_for()


def slider(page, label, nth=0):
    """The handle of the nth slider whose description is ``label``."""
    sliders = page.locator(".widget-slider", has=page.locator(".widget-label", has_text=re.compile(f"^{re.escape(label)}$")))
    return sliders.nth(nth).locator(".noUi-handle")


def press(handle, key):
    handle.focus()
    handle.press(key)


def keep(page, index, name):
    """Screenshot the index-th explorer, as a learner sees it now, into artifacts/browser/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    explorer = page.locator(".jp-OutputArea-output").filter(has=page.locator(READOUT)).nth(index)
    explorer.screenshot(path=str(ARTIFACTS / f"explorer_{name}.png"))


def no_widget_errors(page):
    body = page.locator("body").inner_text()
    assert "Loading widget" not in body and "Error displaying widget" not in body


def dtype_text(value, name="float16"):
    return (dtypes.value_report(dtypes.describe_value(value, name)) + "\n\n"
            + dtypes.bits_report(dtypes.bits_of(value, name)))


def test_dtype_explorer_keys_typing_bits_and_steps(lab, page):
    run_notebook(page, lab, "notebooks/01_dtype_explorer.ipynb")
    assert page.locator("pre.fplab-evidence").count() == 0  # Run All prints no answer
    # nor shows the code that states it: every evidence cell's input is folded
    assert page.locator(".jp-CodeCell .jp-InputPlaceholder").count() == 6
    assert not page.get_by_text('describe_value(65520.0, "float16").status == "overflow"').is_visible()
    wait_text(page, READOUT, 0, dtype_text(10**4.8))  # question 1's explorer
    press(slider(page, "log10 |x|: decade"), "ArrowRight")  # one key press, one decade
    wait_text(page, READOUT, 0, dtype_text(10**5.8))
    press(slider(page, "+"), "ArrowLeft")
    wait_text(page, READOUT, 0, dtype_text(10**5.79))

    typed = page.locator(".widget-text input").first
    typed.fill("65504")  # x follows as you type
    wait_text(page, READOUT, 0, dtype_text(65504.0))
    page.get_by_role("button", name="next above ▶").first.click()
    page.get_by_text("the next value above gives inf, which has no place on the slider: x stays").first.wait_for()
    page.get_by_role("button", name="◀ next below").first.click()
    wait_text(page, READOUT, 0, dtype_text(65472.0))
    page.wait_for_function("box => box.value === ''", arg=typed.element_handle())  # no old number beside x
    page.locator(".fplab-bit").first.click()  # the sign bit
    wait_text(page, READOUT, 0, dtype_text(-65472.0))
    page.locator(".fplab-bit").nth(15).click()  # the last fraction bit: 0xfbfe -> 0xfbff
    wait_text(page, READOUT, 0, dtype_text(-65504.0))
    keep(page, 0, "dtype_bits")

    button = page.get_by_role("button", name="Show the evidence").first
    assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), "the label is cut (ellipsis)"
    button.click()
    evidence = page.locator("pre.fplab-evidence").first
    evidence.wait_for()
    assert evidence.inner_text().startswith("next above 65504: inf\n\n" + dtypes.value_report(
        dtypes.describe_value(65519.99, "float16")))
    no_widget_errors(page)


def test_accumulation_explorer_follows_n_data_and_dtype(lab, page):
    run_notebook(page, lab, "notebooks/04_accumulation_explorer.ipynb")
    report = accumulation.accumulation_report
    wait_text(page, READOUT, 0, report(accumulation.accumulate("1e-4 repeated", "float16"), 1000))
    press(slider(page, "n terms"), "End")
    wait_text(page, READOUT, 0, report(accumulation.accumulate("1e-4 repeated", "float16"), 10_000))
    assert "naive       0.25          0.75        2181" in page.locator(READOUT).first.inner_text()
    page.locator(".widget-dropdown select").nth(1).select_option("bfloat16")
    wait_text(page, READOUT, 0, report(accumulation.accumulate("1e-4 repeated", "bfloat16"), 10_000))
    page.locator(".widget-dropdown select").first.select_option("uniform(0, 1)")
    wait_text(page, READOUT, 0, report(accumulation.accumulate("uniform(0, 1)", "bfloat16"), 10_000))
    keep(page, 0, "accumulation")
    no_widget_errors(page)


def test_accumulation_exact_line_is_on_top_and_in_the_legend():

    figure = accumulation.accumulation_explorer().figure
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        "naive", "pairwise", "kahan", "stochastic", "exact", "n·u", "√n·u"]
    totals = figure.axes[0].lines
    exact = next(i for i, line in enumerate(totals) if line.get_label() == "exact")
    assert exact == len(totals) - 2  # after the four running totals (drawn in this order), before the cursor
    assert totals[exact].get_linestyle() != "-" and totals[exact].get_alpha() in (None, 1)


def test_accumulation_pairwise_stays_visible_under_kahan():
    """pairwise and kahan often give the same totals: pairwise is drawn first and wider, so the
    kahan line on top of it cannot hide it (in both panels)."""

    figure = accumulation.accumulation_explorer(n=10_000).figure
    for lines in (figure.axes[0].lines, figure.axes[1].lines):
        colours = [line.get_color() for line in lines]
        pairwise = lines[colours.index(accumulation._METHOD_COLOURS["pairwise"])]
        kahan = lines[colours.index(accumulation._METHOD_COLOURS["kahan"])]
        assert lines.index(pairwise) < lines.index(kahan)
        assert pairwise.get_linewidth() >= 2.5 * kahan.get_linewidth()


def scaler_text(run, step):
    return gradscaler.scaler_run_report(run) + "\n\n" + gradscaler.scaler_step_report(run, step)


def test_loss_scale_and_gradscaler_explorers(lab, page):
    run_notebook(page, lab, "notebooks/03_loss_scale_explorer.ipynb")
    g = gradscaler.model_gradients()
    press(slider(page, "log2(scale)"), "End")  # question 1's explorer, to 2^40
    wait_text(page, READOUT, 0, loss_scale.loss_scale_report(loss_scale.loss_scale_view(g, 40)))
    overflowing = int((g * 2.0**40 >= 65520).sum())  # float16 overflows from 65520
    assert f"overflow to inf: 99.96% ({overflowing} of 2788)" in page.locator(READOUT).first.inner_text()
    keep(page, 0, "loss_scale")

    index = 3  # question 4's GradScaler explorer: the fourth readout
    wait_text(page, READOUT, index, scaler_text(gradscaler.gradscaler_run(2.0**16, 20, 0.5), 200))
    press(slider(page, "step"), "ArrowRight")
    wait_text(page, READOUT, index, scaler_text(gradscaler.gradscaler_run(2.0**16, 20, 0.5), 201))
    keep(page, index, "gradscaler")
    page.evaluate("""index => {  // record whether the busy line shows while the retrain runs
        const box = [...document.querySelectorAll('.jp-OutputArea-output')]
          .filter(o => o.querySelector('pre.fplab-readout'))[index];
        window.__busy = false;
        new MutationObserver(() => { if (/⏳ retraining/.test(box.textContent)) window.__busy = true; })
          .observe(box, {subtree: true, childList: true, characterData: true});
    }""", index)
    press(slider(page, "log2(init_scale)"), "ArrowLeft")  # each knob retrains
    wait_text(page, READOUT, index, scaler_text(gradscaler.gradscaler_run(2.0**15, 20, 0.5), 201))
    assert page.evaluate("window.__busy"), "no busy cue while the GradScaler retrained"
    press(slider(page, "growth_interval"), "ArrowLeft")
    wait_text(page, READOUT, index, scaler_text(gradscaler.gradscaler_run(2.0**15, 10, 0.5), 201))
    press(slider(page, "backoff_factor"), "ArrowRight")
    wait_text(page, READOUT, index, scaler_text(gradscaler.gradscaler_run(2.0**15, 10, 0.75), 201))
    assert page.get_by_text(re.compile(r"this run: 300 steps, computed in \d+\.\d\d s")).count() >= 1
    no_widget_errors(page)


def test_softmax_explorer_slider_moves_update_the_view(lab, page):
    run_notebook(page, lab, "notebooks/02_softmax_explorer.ipynb")
    press(slider(page, "shift"), "End")
    wait_text(page, READOUT, 0, softmax.softmax_report(softmax.softmax_views(shift=1000.0, dtype_name="float32")))
    assert "p[0]          nan" in page.locator(READOUT).first.inner_text()
    no_widget_errors(page)
