"""In the learner's lab in Chromium: a method-rule breach fails the visible test with the grader's
message as soon as the answer cell ran, before anything is saved or submitted."""
from browsing import BROWSER_TEST, NB01, cell_with, open_notebook, run_all, run_cell, set_cell_source, wait_all_ran, wait_idle

pytestmark = BROWSER_TEST

WIDER = "def kahan_sum(x):\n    return x.double().sum().float()"


def test_a_rule_breach_fails_the_visible_test_in_the_graders_words(lab, page):
    open_notebook(page, lab, NB01)
    run_all(page)
    wait_all_ran(page)
    wait_idle(page)
    answer = cell_with(page, "def kahan_sum(x):")
    set_cell_source(page, answer, WIDER)  # run, never saved: the check reads the cell as it ran
    run_cell(page, answer)
    test = cell_with(page, '"""kahan_sum:')
    run_cell(page, test)
    shown = test.locator(".jp-OutputArea").inner_text()
    assert ("this exercise's method rule: kahan_sum, line 2: the method or attribute `.double` is not on this "
            "exercise's list") in shown, shown
    assert "graded, kahan_sum scores 0 for this" in shown
