"""Output bytes capped where they arrive, and the text snapshot feedback may show (issue #22, items 3, 4).

The unit tests (fast) drive :class:`OutputCaps` and :func:`text_snapshot` with outputs as nbclient
builds them; the sandboxed ones (slow) run notebooks through ``run_in_sandbox`` and ``grade``.
"""
import json
import time

import nbformat
import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook

from autograder.sandbox.limits import MB, Limits
from autograder.sandbox.outputs import OBSERVATION_MIME, SHOWN_PER_CELL, SHOWN_TOTAL, OutputCaps, size_of, text_snapshot
from autograder.sandbox.recording import TIMEOUT_ERROR, RecordingExecute, compile_output_checks

CAPS = (MB, 2 * MB, 8 * MB)


def stream(text, name="stdout"):
    return NotebookNode(output_type="stream", name=name, text=text)


def display(data):
    return NotebookNode(output_type="display_data", data=data, metadata={})


def error(evalue, traceback=()):
    return NotebookNode(output_type="error", ename="ValueError", evalue=evalue, traceback=list(traceback))


def admit_all(caps, outputs, cell=0):
    return [o for o in (caps.admit(out, cell, f"cell {cell + 1}") for out in outputs) if o is not None]


def test_a_30_mb_line_keeps_1_mb_and_a_note():
    caps = OutputCaps(*CAPS)
    [kept] = admit_all(caps, [stream("x" * (30 * MB))])
    assert size_of(kept) <= MB
    assert kept.text.endswith("[output cut at 1 MB per output]\n")
    assert list(caps.notes.values()) == ["cell 1: output cut at 1 MB per output"]


def test_multibyte_text_is_measured_in_bytes():
    caps = OutputCaps(*CAPS)
    [kept] = admit_all(caps, [stream("é" * MB)])  # 2 MB of UTF-8
    assert len(kept.text.encode()) <= MB and "output cut" in kept.text


def test_cell_and_notebook_budgets_bound_everything_kept():
    caps = OutputCaps(*CAPS)
    kept = []
    for cell in range(12):
        kept += admit_all(caps, [stream("y" * (MB // 2)) for _ in range(10)], cell)
    total = sum(size_of(o) for o in kept)
    assert total <= 8 * MB + 12 * 4 * 256
    assert any("per cell" in n for n in caps.notes.values()) and any("per notebook" in n for n in caps.notes.values())


def test_a_flood_after_the_budget_keeps_one_stub_per_kind_and_stderr_and_errors_survive():
    caps = OutputCaps(*CAPS)
    for cell in range(8):  # the notebook budget, spent
        admit_all(caps, [stream("z" * (MB - 100))] * 2, cell)
    admit_all(caps, [display({"text/plain": "w" * 4000})], cell=8)
    assert caps.room("text", 9)[0] < 256
    later = admit_all(caps, [stream("a" * 100)] * 1000 + [stream("warning", "stderr")] * 1000
                      + [error("v" * (3 * MB), ["line"] * 10)] * 3, cell=9)
    kinds = [(o.output_type, o.get("name")) for o in later]
    assert kinds == [("stream", "stdout"), ("stream", "stderr"), ("error", None)]
    assert sum(size_of(o) for o in later) <= 4 * 256
    assert later[2].ename == "ValueError"  # a failing test cell still fails


def test_an_error_over_the_cap_stays_an_error_with_its_name():
    caps = OutputCaps(*CAPS)
    [kept] = admit_all(caps, [error("e" * (5 * MB), ["frame"] * 100_000)])
    assert kept.output_type == "error" and kept.ename == "ValueError"
    assert size_of(kept) <= MB


def test_observations_get_a_larger_budget_and_are_dropped_whole_never_cut():
    caps = OutputCaps(*CAPS)
    record = {"name": "x", "value": {"t": "bytes", "v": "A" * (3 * MB)}}
    [kept] = admit_all(caps, [display({OBSERVATION_MIME: record})])
    assert kept.data[OBSERVATION_MIME] is record  # 3 MB: within 4x the text cap
    [over] = admit_all(caps, [display({OBSERVATION_MIME: {"name": "y", "value": {"v": "B" * (5 * MB)}}})])
    assert OBSERVATION_MIME not in over.data and "output cut" in over.data["text/plain"]
    # an image posing as an observation (extra MIME types) is counted as text
    [image] = admit_all(caps, [display({OBSERVATION_MIME: {}, "image/png": "C" * (2 * MB)})], cell=1)
    assert "image/png" not in image.data


def test_an_absurdly_nested_output_counts_as_over_any_cap():
    nested = []
    for _ in range(200):
        nested = [nested]
    assert size_of(display({"application/json": nested})) > 8 * MB


def answer(outputs, grade_id="a"):
    cell = new_code_cell("pass", metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": grade_id}})
    cell.outputs = outputs
    return cell


def test_snapshot_is_text_only_from_answer_cells():
    demo = new_code_cell("print(1)")
    demo.outputs = [stream("demo output\n")]
    nb = new_notebook(cells=[demo, answer([
        stream("hello\n"), stream("world\n"), stream("careful\n", "stderr"),
        display({"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x480>"}),
        display({"text/html": "<b>hidden</b>"}),
        NotebookNode(output_type="execute_result", execution_count=1, metadata={},
                     data={"text/plain": "42", "text/html": "<i>42</i>"}),
        error("bad input", ["Traceback ...", "secret frame"]),
    ])])
    assert text_snapshot(nb) == {1: [
        {"kind": "out", "text": "hello\nworld\n"}, {"kind": "err", "text": "careful\n"},
        {"kind": "out", "text": "<Figure size 640x480>"}, {"kind": "out", "text": "42"},
        {"kind": "err", "text": "ValueError: bad input"},
    ]}


def test_snapshot_stops_before_the_given_cell_and_is_bounded():
    cells = [answer([stream("x" * (100 * 1024))], f"a{i}") for i in range(10)]
    nb = new_notebook(cells=cells)
    shown = text_snapshot(nb, before=6)
    assert sorted(shown) == list(range(6))
    assert all(sum(size_of(e["text"]) for e in v) <= SHOWN_PER_CELL for v in shown.values())
    assert sum(size_of(e["text"]) for v in shown.values() for e in v) <= SHOWN_TOTAL
    many = new_notebook(cells=[answer([stream(f"{i}\n", ["stdout", "stderr"][i % 2]) for i in range(100)])])
    assert len(text_snapshot(many)[0]) == 20


# ---------------------------------------------------------------- in the sandbox (slow)

# (kind, output): outputs a kernel could send, well formed or not
OUTPUTS = [
    ("stream", {"output_type": "stream", "name": "stdout", "text": "hi"}),
    ("stream", {"output_type": "stream", "name": "stderr", "text": ["a", "b"]}),
    ("stream", {"output_type": "stream", "name": 5, "text": "hi"}),
    ("stream", {"output_type": "stream", "name": "stdout"}),
    ("stream", {"output_type": "stream", "name": "stdout", "text": "x", "extra": 1}),
    ("display_data", {"output_type": "display_data", "data": {"text/plain": "x", "image/png": "aGk="}, "metadata": {}}),
    ("display_data", {"output_type": "display_data", "data": {"application/json": {"a": [1]}}, "metadata": {}}),
    ("display_data", {"output_type": "display_data", "data": {"text/plain": 5}, "metadata": {}}),
    ("display_data", {"output_type": "display_data", "data": "x", "metadata": {}}),
    ("display_data", {"output_type": "display_data", "data": {"text/plain": "x"}}),
    ("execute_result", {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {},
                        "execution_count": 3}),
    ("execute_result", {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {},
                        "execution_count": -1}),
    ("execute_result", {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}}),
    ("error", {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t"]}),
    ("error", {"output_type": "error", "ename": "E", "evalue": "v", "traceback": [1]}),
    ("error", {"output_type": "error", "ename": "E", "traceback": []}),
]


def _verdicts(validate):
    verdicts = []
    for kind, output in OUTPUTS:
        try:
            validate(nbformat.from_dict(json.loads(json.dumps(output))), kind)
            verdicts.append("valid")
        except nbformat.ValidationError:
            verdicts.append("refused")
    return verdicts


def test_compiled_output_checks_give_nbformats_verdicts(monkeypatch):
    original = nbformat.v4.nbbase.validate
    monkeypatch.setattr(nbformat.v4.nbbase, "validate", original)  # put back after the test
    interpreted = _verdicts(original)
    compile_output_checks()
    assert nbformat.v4.nbbase.validate is not original
    assert _verdicts(nbformat.v4.nbbase.validate) == interpreted
    assert interpreted.count("valid") == 6 and interpreted.count("refused") == 10
    bad = {"header": {"msg_type": "stream"}, "content": {"name": "stdout", "text": 7}}
    with pytest.raises(nbformat.ValidationError):
        nbformat.v4.output_from_msg(bad)


def cell(source, **nbgrader):
    return new_code_cell(source, metadata={"nbgrader": nbgrader} if nbgrader else {})


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_reply_s_error_that_no_output_shows_ends_the_cell_as_nbgrader_ends_it():
    nb = new_notebook(cells=[new_code_cell("a"), new_code_cell("b"), new_code_cell("c")])
    executor = RecordingExecute(caps=OutputCaps.of(Limits()))
    executor.nb = nb
    nb.cells[1].outputs = [error("shown")]
    for index, content in enumerate([{**TIMEOUT_ERROR, "status": "error"},  # what nbclient gives at the time limit
                                     {"status": "error", "ename": "ValueError", "evalue": "again", "traceback": []},
                                     {"status": "error", "traceback": "not a list"}]):  # a hostile kernel's reply
        executor.on_cell_executed(cell=nb.cells[index], cell_index=index, execute_reply={"content": content})
    timeout, shown, odd = (cell.outputs for cell in nb.cells)
    assert [(o.ename, o.traceback) for o in timeout] == [("CellTimeoutError", TIMEOUT_ERROR["traceback"])]
    assert [o.evalue for o in shown] == ["shown"]  # already shown: not twice
    assert [(o.ename, o.evalue) for o in odd] == [("None", "")] and len(odd[0].traceback) == 1
    assert all(nbformat.v4.nbbase.validate(o, "error") is None for o in timeout + odd)


def test_in_the_sandbox_a_30_mb_line_arrives_cut_and_feedback_text_is_the_snapshot():
    from autograder.sandbox.run import run_in_sandbox

    nb = new_notebook(cells=[
        cell("print('answer ran')\nfrom IPython.display import display, HTML\n"
             "handle = display(HTML('<b>x</b>'), display_id=True)", solution=True, grade_id="a"),
        cell("print('x' * (30 * 2**20))", solution=True, grade_id="flood"),
        cell("handle.update('HIDDEN TEST SOURCE')\nprint('test ran')", grade=True, solution=False,
             grade_id="test_a", points=1),
        cell("print('after the test')", solution=True, grade_id="late"),
    ])
    start = time.monotonic()
    run = run_in_sandbox(nbformat.writes(nb), Limits())
    seconds = time.monotonic() - start
    assert run.outcome == "ok"
    assert len(run.executed.encode()) < 2 * MB  # one 1 MB output, not 30 MB
    assert run.cut == ("flood (cell 2): output cut at 1 MB per output",)
    executed = nbformat.reads(run.executed, as_version=4)
    assert executed.cells[1].outputs[0].text.endswith("[output cut at 1 MB per output]\n")
    # the snapshot: answer cells before the test only, text only, untouched by the later update
    assert sorted(run.shown) == [0, 1]
    assert run.shown[0] == [{"kind": "out", "text": "answer ran\n"},
                            {"kind": "out", "text": "<IPython.core.display.HTML object>"}]
    assert "HIDDEN" not in json.dumps(run.shown)
    assert size_of(run.shown[1][0]["text"]) <= SHOWN_PER_CELL
    print(f"30 MB line: {seconds:.1f} s in the sandbox, {len(run.executed) / MB:.2f} MB handed back")


@pytest.mark.slow
@pytest.mark.sandbox
def test_a_notebook_with_no_test_cell_snapshots_at_the_end():
    from autograder.sandbox.run import run_in_sandbox

    nb = new_notebook(cells=[cell("print('only answers')", solution=True, grade_id="a")])
    run = run_in_sandbox(nbformat.writes(nb), Limits())
    assert run.shown == {0: [{"kind": "out", "text": "only answers\n"}]} and run.cut == ()


@pytest.mark.slow
@pytest.mark.alone  # compares two batches' wall times
@pytest.mark.sandbox
def test_grading_beside_a_30_mb_printer_costs_little_more_than_beside_a_solved_student(tmp_path):
    """Issue #22: 2 solved + one printing a 30 MB line take at most 1.3x 3 solved students."""
    from conftest import run_cli
    from helpers import ASSIGNMENT, GOOD_TRIPLE, submit_fx as submit
    from make_fixture_course import make_course

    course = make_course(tmp_path / "course")
    assert run_cli("--course", str(course), "release").returncode == 0

    def batch(name, triple):
        submitted, out = tmp_path / name / "submitted", tmp_path / name / "out"
        for student in ("ann", "bob"):
            submit(course, submitted, student)
        submit(course, submitted, "cat", triple=triple)
        start = time.monotonic()
        done = run_cli("--course", str(course), "grade", str(submitted), "--assignment", ASSIGNMENT,
                       "--out", str(out), "--workers", "3", timeout=900)
        assert done.returncode == 0, done.stderr
        return time.monotonic() - start, out

    solved, _ = batch("solved", GOOD_TRIPLE)
    flooded, out = batch("flooded", GOOD_TRIPLE + "\nprint('x' * (30 * 2**20))")
    import csv

    rows = {r["student"]: r for r in csv.DictReader((out / "grades.csv").open())}
    assert rows["cat"]["status"] == "graded" and rows["cat"]["score"] == "5", rows["cat"]
    page = (out / "feedback" / "cat" / f"{ASSIGNMENT}.html").read_bytes()
    assert len(page) < 3 * MB
    print(f"3 solved: {solved:.1f} s; 2 solved + a 30 MB line: {flooded:.1f} s ({flooded / solved:.2f}x)")
    assert flooded <= 1.3 * solved


def test_each_output_costs_a_kilobyte_however_small():
    """360,000 empty outputs cost the trusted side about 1 GB once parsed: each is charged MIN_CHARGE,
    so a cell keeps at most its budget's worth and a stub, and the notebook's budget holds."""
    from autograder.sandbox.outputs import MIN_CHARGE

    caps = OutputCaps(per_output=MB, per_cell=2 * MB, per_notebook=8 * MB)
    kept = admit_all(caps, [stream("") for _ in range(50_000)])
    assert 2 * MB // MIN_CHARGE - 1 <= len(kept) <= 2 * MB // MIN_CHARGE + 1
    assert "output cut at 2 MB per cell" in kept[-1]["text"]
    for cell in range(1, 10):
        admit_all(caps, [stream("") for _ in range(5_000)], cell)
    assert caps.total["text"] <= 8 * MB + 10 * MIN_CHARGE  # the budget, and one stub a cell saying so
