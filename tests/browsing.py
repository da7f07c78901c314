"""What the browser tests share beside their fixtures (tests/conftest.py: lab, browser, page): where
Chromium is, their marks, and the moves a learner makes in JupyterLab."""
import os
import re
import shutil

import pytest

from conftest import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("CI"):
    raise RuntimeError("CI needs Debian's chromium for the browser tests (apt-get install chromium)")
# The marks of every browser test module (its pytestmark).
BROWSER_TEST = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None,
                                                     reason="chromium is not installed; `make test` installs it")]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
NB01 = "release/01_nonassociativity/01_nonassociativity.ipynb"


def open_notebook(page, lab, path):
    """Open one notebook in a fresh workspace (``reset``: no tabs left over from other tests)."""
    page.goto(lab.url(f"/lab/tree/{path}") + "&reset")
    wait_idle(page)


def wait_idle(page, timeout=120_000):
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
                 .some(e => /\\| Idle$/.test(e.textContent.trim()))""", timeout=timeout)


def run_all(page):
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def wait_all_ran(page, timeout=180_000):
    """Every code cell shows an execution count (not blank, not '*'); a folded input's placeholder
    has a prompt that never shows one, so it is left out."""
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""", timeout=timeout)


def cell_with(page, text):
    return page.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=text)).first


def set_cell_source(page, cell, code):
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Escape")


def run_cell(page, cell):
    """Run one cell and wait until its prompt shows a new execution count (not '*', not the old one)."""
    prompt = cell.locator(".jp-InputPrompt")
    before = prompt.inner_text()
    cell.locator(".jp-InputArea").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("([el, before]) => /\\[\\d+\\]/.test(el.textContent) && el.textContent !== before",
                           arg=[prompt.element_handle(), before])


def validate(page):
    """Press nbgrader's Validate (it saves the notebook first) and return the result dialog's text."""
    page.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog", has_text=re.compile("Validation Results|File Changed"))
    dialog.wait_for(timeout=180_000)
    if "File Changed" in dialog.inner_text():
        dialog.get_by_role("button", name="Overwrite").click()
        dialog = page.locator(".jp-Dialog", has_text="Validation Results")
        dialog.wait_for(timeout=180_000)
    text = dialog.inner_text()
    dialog.get_by_role("button").last.click()
    dialog.wait_for(state="detached")
    return text
