"""Real-browser checks of the learner, self-study and instructor flows in JupyterLab."""
import json
import os
import re

import nbformat
import pytest

from autograder.cases import solution_text, with_answers
from autograder.course import answer_cells
from autograder.kit import build_kit
from browsing import (BROWSER_TEST, NB01, cell_with, open_notebook, run_all, run_cell, set_cell_source, validate,
                      wait_all_ran, wait_idle)
from conftest import ASSIGNMENTS, ROOT
from autograder.lab_server import LabServer

pytestmark = BROWSER_TEST
SKIP_LINE = "skipped: needs a CUDA GPU; nothing here is graded"


@pytest.fixture(scope="module")
def instructor_lab(tmp_path_factory):
    """The instructor's lab, as `make lab-instructor` starts it (nbgrader's defaults)."""
    server = LabServer(ROOT, tmp_path_factory.mktemp("instructor"), role="instructor").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def kit_lab(course, tmp_path_factory):
    """The kit's lab: a kit built as students get it, served with its own lab/learner, where nothing
    names an exchange."""
    kit = tmp_path_factory.mktemp("kit") / "finite-kit"
    build_kit(course, kit)
    server = LabServer(kit, tmp_path_factory.mktemp("kit-lab"), role="learner", course=kit).start()
    yield server
    server.stop()


def test_learner_runs_the_release_on_cpu_and_validates(lab, page):
    open_notebook(page, lab, NB01)
    run_all(page)
    wait_all_ran(page)
    wait_idle(page)

    gpu_cells = page.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text="%%gpu_optional"))
    assert gpu_cells.count() >= 1
    for i in range(gpu_cells.count()):
        assert gpu_cells.nth(i).locator(".jp-OutputArea").inner_text().strip() == SKIP_LINE

    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    texts = [errors.nth(i).inner_text() for i in range(errors.count())]
    # unfinished exercises raise NotImplementedError; the quiz test asks for the quiz answers first
    expected = re.compile(r"NotImplementedError|NameError: answer the quiz first")
    unexpected = [t for t in texts if not expected.search(t)]
    assert texts and unexpected == [], unexpected

    answer = (ROOT / "cases/01_nonassociativity/ulp_distance--right--numpy_uint32.py").read_text()
    answer_cell = cell_with(page, "def ulp_distance(a, b):")
    set_cell_source(page, answer_cell, answer)
    run_cell(page, answer_cell)
    test_cell = cell_with(page, '"""ulp_distance:')
    run_cell(page, test_cell)
    assert test_cell.locator(".jp-OutputArea").inner_text().strip() == "ulp_distance: visible checks passed"
    passing = validate(page)

    set_cell_source(page, answer_cell, "def ulp_distance(a, b):\n    return (a - b).abs().to(torch.int64)")
    run_cell(page, answer_cell)
    failing = validate(page)
    # Validate answers in the course's words: the summary's table, failing exercises first.
    for text in (passing, failing):
        assert "passes all the tests" not in text and "The following cell failed" not in text, text
        assert "That is not a score: when your notebook is graded, hidden tests check more cases." in text
    assert re.search(r"^ulp_distance +3  pass; the grader checks more$", passing, re.M), passing
    assert re.search(r"^kahan_sum +3  not attempted$", passing, re.M), passing
    assert "1 of 5 exercises pass their visible checks" in passing
    rows = [line for line in failing.splitlines() if re.match(r"\w+ +\d+  \S", line)]
    assert re.match(r"ulp_distance +3  fail \(AssertionError: 1.0 and the next float32 are 1 apart\)$", rows[0]), rows
    assert "0 of 5 exercises pass their visible checks" in failing


def nbgrader_tools(page, lab):
    """What nbgrader shows in this lab: sidebar tabs, Nbgrader menu items, Validate, /formgrader's status."""
    open_notebook(page, lab, NB01)
    tabs = page.eval_on_selector_all(".jp-SideBar .lm-TabBar-tab", "els => els.map(e => e.textContent.trim())")
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Nbgrader$")).click()
    items = page.eval_on_selector_all(".lm-Menu-itemLabel", "els => els.map(e => e.textContent.trim())")
    page.keyboard.press("Escape")
    return {"tabs": [t for t in tabs if t], "items": [i for i in items if i],
            "validate": page.get_by_role("button", name="Validate").count(),
            "formgrader": page.request.get(lab.url("/formgrader")).status}


def test_learner_lab_has_no_instructor_tools_and_the_instructor_lab_has_them(lab, instructor_lab, page):
    learner = nbgrader_tools(page, lab)
    assert "Create Assignment" not in learner["tabs"]
    assert learner["items"] == ["Assignment List"]  # no Formgrader, Course List or Create assignment
    assert learner["validate"] == 1 and learner["formgrader"] == 404

    instructor = nbgrader_tools(page, instructor_lab)
    assert "Create Assignment" in instructor["tabs"]
    assert {"Formgrader", "Course List", "Create assignment"} <= set(instructor["items"])
    assert instructor["validate"] == 1 and instructor["formgrader"] == 200
    page.wait_for_timeout(3000)  # JupyterLab asks about news just after it starts
    assert page.get_by_text(NEWS).count() == 0  # lab/instructor/labconfig, as make lab-instructor


def test_instructor_formgrader_lists_the_assignments(instructor_lab, page):
    lab = instructor_lab
    page.goto(lab.url("/formgrader"))
    frame_text = page.locator("body")
    page.wait_for_function("() => document.body.innerText.includes('01_nonassociativity')", timeout=60_000)
    text = frame_text.inner_text()
    for folder in sorted((ROOT / "source").iterdir()):
        if folder.is_dir():
            assert folder.name in text


SOLVED = ("ulp_distance", "kahan_sum")


def solved_release(path, names):
    """The release notebook with the answer cells ``names`` replaced by the source's solutions."""
    solutions = answer_cells(nbformat.read(ROOT / NB01.replace("release/", "source/", 1), as_version=4))
    solved = with_answers(nbformat.read(path, as_version=4), {name: solution_text(solutions[name]) for name in names})
    nbformat.write(solved, path)


@pytest.mark.skipif("summary(" not in (ROOT / NB01).read_text(),
                    reason="01's release has no summary cell yet (fplab.progress.summary, issue 24 item 2)")
def test_run_all_of_01_with_two_exercises_solved_shows_the_summary_table(lab, page):
    solved_release(lab.course / NB01, SOLVED)
    open_notebook(page, lab, NB01)
    run_all(page)
    wait_all_ran(page)
    wait_idle(page)
    table = page.locator(".jp-OutputArea-output", has_text="exercise").filter(has_text="visible checks").last
    lines = table.inner_text().splitlines()
    header = next(i for i, line in enumerate(lines) if re.match(r"exercise\s+points\s+visible checks$", line))
    rows = {}
    for line in lines[header + 2:]:
        match = re.match(r"(\w+)\s+(\d+(?:\.\d+)?)\s+(.+)$", line)
        if not match:
            break
        rows[match[1]] = match[3]
    assert set(SOLVED) < set(rows), rows
    for name, state in rows.items():
        if name in SOLVED:
            assert state == "pass; the grader checks more", (name, state)
        else:
            assert re.match(r"(not attempted|fail)( \(.+\))?$", state), (name, state)
    assert f"{len(SOLVED)} of {len(rows)} exercises pass their visible checks" in table.inner_text()


NEWS = "Would you like to get notified about official Jupyter news?"


def test_the_kits_lab_opens_with_no_news_pop_up_and_no_assignments_tab_without_an_exchange(kit_lab, page):
    open_notebook(page, kit_lab, "notebooks/00_start_here.ipynb")
    page.wait_for_timeout(3000)  # JupyterLab asks about news just after it starts
    assert page.get_by_text(NEWS).count() == 0
    menus = page.eval_on_selector_all(".lm-MenuBar-itemLabel", "els => els.map(e => e.textContent.trim())")
    if not os.path.isdir("/usr/local/share/nbgrader/exchange"):  # nbgrader's default root: none here
        assert "Nbgrader" not in menus, menus
    assert "Error fetching courses" not in page.locator("body").inner_text()
    assert page.get_by_role("button", name="Validate").count() == 1


def test_every_notebook_opens_unmodified(kit_lab, page):
    """JupyterLab writes the kernel's language_info into a notebook when its kernel starts: the lab
    serves every notebook with the kernel's own, so that none opens marked modified (●), also one
    written on another Python."""
    from ipykernel.ipkernel import IPythonKernel

    kit = kit_lab.course
    other = nbformat.read(kit / NB01, as_version=4)
    other.metadata["language_info"]["version"] = "3.99.0"
    nbformat.write(other, kit / "notebooks" / "written_elsewhere.ipynb")
    found = [*kit.glob("release/*/*.ipynb"), *kit.glob("notebooks/*.ipynb")]
    paths = sorted(p.relative_to(kit).as_posix() for p in found)
    assert len(paths) == len(ASSIGNMENTS) + 6
    for path in paths:
        served = json.loads(kit_lab.api("GET", f"/api/contents/{path}"))["content"]["metadata"]
        assert served["language_info"] == json.loads(json.dumps(IPythonKernel.language_info)), path
    for path in ("notebooks/00_start_here.ipynb", "release/02_norm_overflow/02_norm_overflow.ipynb",
                 "notebooks/01_dtype_explorer.ipynb", "notebooks/written_elsewhere.ipynb"):
        open_notebook(page, kit_lab, path)
        page.wait_for_timeout(1000)  # the kernel's info has come with its first idle
        tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
        assert "jp-mod-dirty" not in tab.get_attribute("class"), path
