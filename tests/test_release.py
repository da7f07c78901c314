"""release/ is generated from source/, in sync, stripped, and leaks no solution or hidden test."""
import functools

import nbformat
import pytest
from nbgrader.validator import Validator

from autograder.cases import CASE_NAME
from autograder.course import answer_cells, graded_tests, hidden_regions
from autograder.release import generate, same_tree
from conftest import ASSIGNMENTS, ROOT


def notebooks_under(*folders):
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)


@pytest.mark.slow
def test_release_matches_a_fresh_generation(course, tmp_path):
    ids = ASSIGNMENTS
    assert ids, "no assignments in source/"
    generated = generate(course, ids, tmp_path) / "release"
    released = sorted(p.name for p in course.release.iterdir() if not p.name.startswith("."))
    assert released == ids, "release/ holds other assignments than source/"
    stale = [i for i in ids if not same_tree(generated / i, course.release / i)]
    assert stale == [], f"release/ out of date for {stale}: run `python -m autograder release`"


@pytest.mark.parametrize("path", notebooks_under("source", "release", "notebooks"), ids=str)
def test_committed_notebooks_have_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert dirty == [], f"{path} has outputs in cells {dirty}"


def code_lines(text):
    return [line.strip() for line in text.splitlines() if len(line.strip()) >= 8]


def pairs(text):
    lines = code_lines(text)
    return {"\n".join(pair) for pair in zip(lines, lines[1:])}


def hidden_snippets(course):
    """Every two consecutive substantial lines of a solution or hidden-test region.

    Pairs, not single lines: a generic line (``torch.manual_seed(seed)``) may rightly appear
    elsewhere, two consecutive lines of an answer may not. Pairs the source notebooks also
    show openly (an idiom a demo teaches) are not secrets.
    """
    secret, shown = set(), set()
    for assignment_id in ASSIGNMENTS:
        for cell in course.source_notebook(assignment_id).cells:
            regions = hidden_regions(cell.source)
            for region in regions:
                secret |= pairs(region)
            shown |= pairs(functools.reduce(lambda text, region: text.replace(region, ""), regions, cell.source))
    return secret - shown


def test_no_solution_or_hidden_test_text_reaches_learners(course):
    snippets = hidden_snippets(course)
    for assignment_id in ASSIGNMENTS:  # the detector must be able to fail: it sees the source
        source = "\n".join(c.source for c in course.source_notebook(assignment_id).cells)
        assert any(s in "\n".join(code_lines(source)) for s in snippets), assignment_id
    exposed = []
    for path in notebooks_under("release", "notebooks") + sorted((ROOT / "fplab").rglob("*.py")):
        text = path.read_text()
        if path.suffix == ".ipynb":
            text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
        if "BEGIN SOLUTION" in text or "BEGIN HIDDEN TESTS" in text:
            exposed.append(f"{path}: region marker")
        shown = "\n".join(code_lines(text))
        exposed += [f"{path}: {snippet!r}" for snippet in snippets if snippet in shown]
    assert exposed == []


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_graded_cells_follow_the_conventions(course, assignment_id):
    nb = course.source_notebook(assignment_id)
    answers, tests = answer_cells(nb), graded_tests(nb)
    assert set(tests) == {f"test_{a}" for a in answers}, "each answer cell needs exactly one test_<id>"
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            assert meta.get("locked") and meta.get("points", 0) > 0, meta["grade_id"]
            assert "raises-exception" in cell.metadata.get("tags", []), (
                f"{meta['grade_id']}: tag test cells raises-exception so Run All goes past unfinished work"
            )
            assert "### BEGIN HIDDEN TESTS" in cell.source, f"{meta['grade_id']} has no hidden tests"
            assert cell.source.startswith('"""'), f"{meta['grade_id']}: open with a docstring"
        if meta.get("grade_id") == "quiz":
            assert "raises-exception" in cell.metadata.get("tags", []), (
                "tag the quiz answer cell raises-exception: its stub raises at top level"
            )
        if "gpu-optional" in cell.metadata.get("tags", []):
            assert cell.source.startswith("%%gpu_optional"), "gpu-optional cells start with %%gpu_optional"
            assert not meta.get("grade"), "no graded point depends on a GPU"


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_every_graded_function_has_wrong_and_right_cases(course, assignment_id):
    answers = answer_cells(course.source_notebook(assignment_id))
    verdicts = {a: [] for a in answers}
    for path in (course.cases / assignment_id).glob("*.py"):
        match = CASE_NAME.match(path.name)
        assert match, f"badly named case {path.name}"
        verdicts[match["grade_id"]].append(match["verdict"])
    short = {a: v for a, v in verdicts.items() if v.count("wrong") < 2 or v.count("right") < 1}
    assert short == {}, "each graded cell needs >= 2 wrong and >= 1 right case"


@pytest.fixture(scope="module")
def untouched_runs(course):
    """Each untouched release, Run All once (errors allowed): {assignment id: executed notebook}."""
    from nbclient import NotebookClient

    runs = {}

    def run(assignment_id):
        if assignment_id not in runs:
            path = course.release / assignment_id / f"{assignment_id}.ipynb"
            nb = nbformat.read(path, as_version=4)
            NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            runs[assignment_id] = nb
        return runs[assignment_id]
    return run


def errors(cell):
    return [o for o in cell.get("outputs", []) if o.output_type == "error"]


@pytest.mark.slow
@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_untouched_release_runs_to_the_end_and_fails_nbgrader_s_validation(untouched_runs, assignment_id):
    """Run All on the untouched release: only cells tagged raises-exception may raise, and some
    graded test fails (what nbgrader's Validator reports as failed)."""
    nb = untouched_runs(assignment_id)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code if c.source.strip()), "Run All stopped early"
    untagged = [c.source[:60] for c in code if errors(c) and "raises-exception" not in c.metadata.get("tags", [])]
    assert untagged == [], "only cells tagged raises-exception may raise"
    assert any(errors(c) for c in code if c.metadata.get("nbgrader", {}).get("grade")), \
        "the untouched release should fail validation"


@pytest.mark.slow
@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_nbgrader_validates_the_source(course, assignment_id):
    source = Validator().validate(str(course.source_path(assignment_id)))
    assert not source.get("failed") and not source.get("type_changed"), source
