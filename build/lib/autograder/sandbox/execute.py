"""Execute a restored notebook in a fresh, capped sandbox: the only step that runs student code.

Two things happen here, on the worker, while the notebook runs, so that nothing downstream (the
judge, the secret filter, the feedback renderer, the grader's memory) depends on what a learner
chooses to print:

* **Output bytes are capped where they arrive** (:class:`OutputCaps`): per output, per cell and
  per notebook, from ``Limits``. What is over is replaced by a short note ("[output cut at 1 MB
  per output]"), and a line for the trusted side goes to ``SandboxRun.cut``. The judge's
  observations (display data of ``fplab.observe.MIME``) have their own, larger budget (they are
  made by the tests, not by the learner; the largest solved notebook of the course makes 1.7 MB in
  one cell); an observation over it is dropped whole, never cut (the judge then finds it missing).
  A cell keeps at least one short stub of its stderr and of its error, so a cut never turns a
  failing test cell into a passing one. Widget state and output-widget capture are not kept.
  ZeroMQ drops any single message frame over ``bubblewrap.MAX_MESSAGE`` before it is decoded.
* **The grading worker never holds what the kernel sent.** The kernel's client (this module's
  executor) runs in a process of its own inside the student's cgroup
  (:mod:`autograder.sandbox.client`); it counts raw bytes and frames per channel before decoding
  (:mod:`autograder.sandbox.traffic`) and hands the worker only the capped notebook, in a file
  of bounded size.
* **What feedback may show is snapshotted before any hidden test runs** (``SandboxRun.shown``):
  just before the first graded test cell starts, a text-only copy of the outputs of every earlier
  answer cell (stream text, ``text/plain``, ``ename: evalue``; no images, HTML or widget state),
  bounded in size. Nothing that runs later (display updates included) can change it.
"""
import json
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import fastjsonschema
import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbconvert.preprocessors import ExecutePreprocessor

from autograder.sandbox.bubblewrap import QuietKernelManager
from autograder.sandbox.enclosure import Enclosure
from autograder.sandbox.limits import MB
from autograder.sandbox.traffic import Meter
from autograder.sandbox.usage import Usage

OBSERVATION_MIME = "application/vnd.finite.observation+json"  # fplab.observe.MIME (not imported: torch)
OBSERVATION_FACTOR = 4  # observations' budgets, as a multiple of the text budgets
STUB = 256  # bytes a cut output keeps at least (its note, an error's name)
# What one output costs the budgets at least: a kernel can send outputs of a few bytes each, and
# each costs the trusted side about 40 times its bytes once parsed (360,000 empty ones: +988 MB).
# The reference runs send at most 69 observations to a test cell: far under 8 MB / 1 KB.
MIN_CHARGE = 1024
SHOWN_PER_CELL = 32 * 1024  # text of one answer cell in the feedback snapshot
SHOWN_TOTAL = 128 * 1024  # text of all answer cells in the feedback snapshot
SHOWN_ENTRIES = 20  # entries per answer cell in the feedback snapshot
# ipykernel pauses 0.5 ms after each cell so that a frontend that stops reading at the execute reply
# has seen the cell's output. nbclient reads the kernel's IOPub messages until the idle status that
# follows them all, so the pause only costs time (45 ms for a graded notebook of this course).
NO_EXECUTE_SLEEP = "--IPythonKernel._execute_sleep=0"


OUTPUT_KINDS = ("stream", "display_data", "execute_result", "error")


def compile_output_checks() -> None:
    """Check each output a kernel sends with fastjsonschema, compiled once, in place of
    jsonschema's interpreter.

    nbclient builds each output with ``nbformat.v4.new_output``, which checks it against its
    definition in the notebook schema through jsonschema (0.2 ms an output, 40 ms of an executor's
    CPU for a graded notebook of this course). nbformat checks whole notebooks with fastjsonschema
    already; this gives the outputs' checks the same engine, with the same verdicts
    (``test_sandbox_output``). Called by the executor server, so every executor it forks has them.
    """
    folder = Path(nbformat.v4.__file__).parent
    schema = json.loads((folder / nbformat.v4.nbformat_schema[(None, None)]).read_text())
    checks = {kind: fastjsonschema.compile({"$schema": schema["$schema"], "definitions": schema["definitions"],
                                            "$ref": f"#/definitions/{kind}"}) for kind in OUTPUT_KINDS}
    interpreted = nbformat.v4.nbbase.validate

    def validate(node, ref=None):
        if ref not in checks:
            return interpreted(node, ref)
        try:
            checks[ref](node)
        except fastjsonschema.JsonSchemaException as error:
            raise nbformat.ValidationError(str(error), schema_path=error.path) from None

    nbformat.v4.nbbase.validate = validate


def _megabytes(n):
    return f"{n / MB:g} MB" if n >= MB else f"{n / 1024:g} KB"


def size_of(value, depth=0) -> int:
    """Bytes ``value`` (an output, JSON-like) takes as UTF-8 JSON, roughly (strings exactly)."""
    if isinstance(value, str):
        return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
    if depth > 64:
        return 1 << 40  # absurdly nested: treated as over any cap
    if isinstance(value, dict):
        return sum(size_of(k, depth + 1) + size_of(v, depth + 1) + 4 for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(size_of(v, depth + 1) + 1 for v in value)
    return 8


def _head(text, limit) -> str:
    """The longest start of ``text`` that is at most ``limit`` bytes in UTF-8."""
    limit = max(0, limit)
    if len(text) <= limit and (text.isascii() or len(text.encode("utf-8", "surrogatepass")) <= limit):
        return text
    return text.encode("utf-8", "surrogatepass")[:limit].decode("utf-8", "ignore")


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def is_observation(out) -> bool:
    """Display data as ``fplab.observe`` publishes it: its MIME type alone."""
    return out.get("output_type") in ("display_data", "execute_result") and \
        set(out.get("data") or {}) == {OBSERVATION_MIME}


def is_test_cell(cell) -> bool:
    """A graded test cell: code, nbgrader ``grade: true``, not an answer (``solution``)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_answer_cell(cell) -> bool:
    return cell.get("cell_type") == "code" and bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def cell_label(nb, index) -> str:
    grade_id = nb.cells[index].get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"{grade_id} (cell {index + 1})" if grade_id else f"cell {index + 1}"


def text_snapshot(nb, before=None) -> dict:
    """{cell index: [{"kind": "out"|"err", "text": str}]} for the answer cells before ``before``
    (all when None): stream text, ``text/plain`` of display data and results, ``ename: evalue``
    of errors; nothing else. At most SHOWN_ENTRIES entries and SHOWN_PER_CELL bytes per cell,
    SHOWN_TOTAL in all; a cut entry ends with a note."""
    shown, left = {}, SHOWN_TOTAL
    for index, cell in enumerate(nb.cells[:before]):
        if not is_answer_cell(cell):
            continue
        entries, room = [], min(SHOWN_PER_CELL, left)
        for out in cell.get("outputs", []):
            kind, text = None, ""
            if out.get("output_type") == "stream":
                kind, text = ("err" if out.get("name") == "stderr" else "out"), _text(out.get("text"))
            elif out.get("output_type") in ("display_data", "execute_result"):
                kind, text = "out", _text((out.get("data") or {}).get("text/plain"))
            elif out.get("output_type") == "error":
                kind, text = "err", f"{_text(out.get('ename'))}: {_text(out.get('evalue'))}"
            stream = out.get("output_type") == "stream"
            if kind is None or not text:
                continue
            if entries and entries[-1]["kind"] == kind and stream and entries[-1].get("_stream"):
                entries[-1]["text"] += text  # consecutive prints read as one
            elif len(entries) < SHOWN_ENTRIES:
                entries.append({"kind": kind, "text": text, "_stream": stream})
            else:
                break
        entries = [{"kind": e["kind"], "text": e["text"]} for e in entries]
        for entry in entries:
            if size_of(entry["text"]) > room:
                note = "\n[... cut]"
                entry["text"] = _head(entry["text"], room - len(note)) + note if room > len(note) + 16 else ""
            room -= size_of(entry["text"])
        entries = [e for e in entries if e["text"]]
        left -= sum(size_of(e["text"]) for e in entries)
        shown[index] = entries
    return shown


class OutputCaps:
    """Budgets of stored output bytes (per output, per cell, per notebook), and what was cut."""

    def __init__(self, per_output, per_cell, per_notebook):
        self.limits = {"text": (per_output, per_cell, per_notebook),
                       "observation": tuple(OBSERVATION_FACTOR * n for n in (per_output, per_cell, per_notebook))}
        self.reset()
        self.notes = {}  # (cell index, what) -> note, first seen first

    @classmethod
    def of(cls, limits) -> "OutputCaps":
        """The budgets ``limits`` sets (``output_mb``, ``cell_output_mb``, ``notebook_output_mb``)."""
        return cls(round(limits.output_mb * MB), round(limits.cell_output_mb * MB), round(limits.notebook_output_mb * MB))

    def reset(self):
        self.kept = {}  # (class, cell index) -> bytes
        self.total = {"text": 0, "observation": 0}
        self.stubbed = set()  # (cell index, stub kind) already holding a stub

    def forget(self, cell_index):
        """The cell's outputs were cleared."""
        for kind in ("text", "observation"):
            self.total[kind] -= self.kept.pop((kind, cell_index), 0)
        self.stubbed = {s for s in self.stubbed if s[0] != cell_index}

    def room(self, kind, cell_index):
        """(bytes one more output of ``kind`` may take in this cell, the limit that binds)."""
        per_output, per_cell, per_notebook = self.limits[kind]
        options = [(per_output, f"{_megabytes(per_output)} per output"),
                   (per_cell - self.kept.get((kind, cell_index), 0), f"{_megabytes(per_cell)} per cell"),
                   (per_notebook - self.total[kind], f"{_megabytes(per_notebook)} per notebook")]
        return min(options, key=lambda o: o[0])

    def charge(self, kind, cell_index, size):
        size = max(size, MIN_CHARGE)
        self.kept[(kind, cell_index)] = self.kept.get((kind, cell_index), 0) + size
        self.total[kind] += size

    def admit(self, out, cell_index, label):
        """``out`` as it may be kept (cut, a stub, or None: dropped), charged to the budgets (each
        at least MIN_CHARGE)."""
        kind = "observation" if is_observation(out) else "text"
        size = max(size_of(out), MIN_CHARGE)
        room, binding = self.room(kind, cell_index)
        if size <= room:
            self.charge(kind, cell_index, size)
            return out
        self.notes.setdefault((cell_index, binding), f"{label}: output cut at {binding}")
        note = f"\n[output cut at {binding}]\n"
        stub = (cell_index, out.get("output_type") if out.get("output_type") != "stream" else out.get("name"))
        if room < STUB:
            if stub in self.stubbed:
                return None
            self.stubbed.add(stub)
            room = STUB
        cut = _cut(out, room, note)
        self.charge("text", cell_index, size_of(cut))
        return cut


def _cut(out, room, note) -> NotebookNode:
    """A copy of ``out`` in at most ``room`` bytes (about), what is over replaced by ``note``."""
    kind = out.get("output_type")
    if kind == "stream":
        name = out.get("name") if out.get("name") in ("stdout", "stderr") else "stdout"
        return NotebookNode(output_type="stream", name=name,
                            text=_head(_text(out.get("text")), room - len(note) - 64) + note)
    if kind == "error":
        ename = _head(_text(out.get("ename")), 100) or "Error"
        evalue = _head(_text(out.get("evalue")), max(0, (room - len(ename) - len(note)) // 2))
        traceback, left = [], room - size_of(ename) - size_of(evalue) - len(note) - 64
        for line in out.get("traceback") or []:
            line = _text(line)
            if size_of(line) + 8 > left:
                break
            traceback.append(line)
            left -= size_of(line) + 8
        return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=traceback + [note.strip()])
    plain = "" if is_observation(out) else _text((out.get("data") or {}).get("text/plain"))
    cut = NotebookNode(output_type="display_data" if kind != "execute_result" else "execute_result",
                       data={"text/plain": _head(plain, room - len(note) - 64) + note}, metadata={})
    if kind == "execute_result":
        cut.execution_count = out.get("execution_count")
    return cut


# A cell interrupted at its time limit ends with this error, as nbgrader's ``Execute`` gives it.
TIMEOUT_ERROR = {"ename": "CellTimeoutError", "evalue": "",
                 "traceback": ["\x1b[0;31mCellTimeoutError\x1b[0m: No reply from kernel before timeout"]}


class RecordingExecute(ExecutePreprocessor):
    """nbconvert's executor as nbgrader's ``Execute`` sets it up (the reply's error kept when no
    output shows it, :data:`TIMEOUT_ERROR`), remembering which cells really ran, capping output
    bytes as they arrive and snapshotting the answer cells' text before the first test cell runs.
    Not nbgrader's class itself: importing nbgrader loads the Formgrader's server extensions,
    0.65 s of CPU at every executor server's start."""

    def __init__(self, caps: "OutputCaps", **kwargs):
        super().__init__(error_on_timeout=TIMEOUT_ERROR, **kwargs)
        self.ran = set()
        self.running = None  # index of the cell that started last and has not finished
        self.timed_out = []  # indices of the cells interrupted by the cell time limit
        self.requests = {}  # msg_id of each cell's execute request -> cell index
        self.caps = caps
        self.shown = None
        self.store_widget_state = False
        self.comm_open_handlers = {}  # no Output-widget capture: outputs stay in their cell, capped

    # -- before a hidden test enters the kernel
    def on_cell_execute(self, **kwargs):
        self.running = kwargs["cell_index"]
        if self.shown is None and is_test_cell(kwargs["cell"]):
            self.shown = text_snapshot(self.nb, kwargs["cell_index"])

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        self.requests[parent_msg_id] = cell_index
        return await super()._async_poll_output_msg(parent_msg_id, cell, cell_index)

    async def _async_handle_timeout(self, timeout, cell=None):
        if self.running is not None and self.running not in self.timed_out:
            self.timed_out.append(self.running)
        return await super()._async_handle_timeout(timeout, cell)

    def on_cell_executed(self, **kwargs):
        index = kwargs["cell_index"]
        self.ran.add(index)
        self.running = None
        cell, reply = kwargs["cell"], kwargs["execute_reply"].get("content") or {}
        if reply.get("status") == "error" and not any(out.get("output_type") == "error" and
                                                      out.get("ename") == reply.get("ename") for out in cell.outputs):
            lines = reply.get("traceback") if isinstance(reply.get("traceback"), list) else []
            cell.outputs.append(NotebookNode(  # a timeout's error, or a reply's error no output showed: capped below
                output_type="error", ename=str(reply.get("ename")), evalue=str(reply.get("evalue", "")),
                traceback=[str(line) for line in lines] or ["ERROR: An error occurred while showtraceback was disabled"]))
        self.caps.forget(index)
        cell.outputs = self._fit(cell.outputs, index)

    # -- output as it arrives
    def _fit(self, outputs, index):
        label = cell_label(self.nb, index)
        return [o for o in (self.caps.admit(out, index, label) for out in outputs) if o is not None]

    def output(self, outs, msg, display_id, cell_index):
        if self.clear_before_next_output:
            self.caps.forget(cell_index)
        out = super().output(outs, msg, display_id, cell_index)
        if out is None or not outs or outs[-1] is not out:  # an output hook took it, or nothing was added
            return out
        kept = self.caps.admit(outs[-1], cell_index, cell_label(self.nb, cell_index))
        if kept is None:
            outs.pop()
            if display_id:
                self._display_id_map[display_id][cell_index].pop()
            return None
        outs[-1] = kept
        return kept

    def clear_output(self, outs, msg, cell_index):
        super().clear_output(outs, msg, cell_index)
        if not outs:
            self.caps.forget(cell_index)

    def _update_display_id(self, display_id, msg):
        """A display update may replace data in earlier outputs: it gets the budget an output
        gets, and the outputs it replaces give theirs back."""
        targets = self._display_id_map.get(display_id, {})
        content = msg.get("content", {})
        new = NotebookNode(output_type="display_data", data=content.get("data") or {},
                           metadata=content.get("metadata") or {})
        count = sum(len(indices) for indices in targets.values())
        if not count:
            return
        kind = "observation" if is_observation(new) else "text"
        size = size_of(new)
        fits = True
        for cell_index, indices in targets.items():
            outputs = self.nb.cells[cell_index].outputs
            old = sum(size_of(outputs[i]) for i in indices if i < len(outputs))
            room, binding = self.caps.room(kind, cell_index)
            if size > self.caps.limits[kind][0] or size * len(indices) - old > max(0, room):
                fits = False
                self.caps.notes.setdefault((cell_index, binding),
                                           f"{cell_label(self.nb, cell_index)}: output cut at {binding}")
        if not fits:
            msg = {**msg, "content": {**content, "data": {"text/plain": "[display update cut: over the output cap]"},
                                      "metadata": {}}}
            kind, size = "text", 64
        for cell_index, indices in targets.items():
            outputs = self.nb.cells[cell_index].outputs
            old = sum(size_of(outputs[i]) for i in indices if i < len(outputs))
            self.caps.charge(kind, cell_index, size * len(indices) - old)
        super()._update_display_id(display_id, msg)

    def handle_comm_msg(self, outs, msg, cell_index):
        return  # widget state is neither kept nor shown

    def settle(self, nb):
        """Enforce the caps on what is stored, once more, after the run (nbclient joins a cell's
        stream outputs after the hooks run, and a cell may not have run)."""
        self.caps.reset()
        for index, cell in enumerate(nb.cells):
            if cell.get("cell_type") == "code" and cell.get("outputs"):
                cell.outputs = self._fit(cell.outputs, index)
        nb.metadata.pop("widgets", None)


def handoff(nb) -> str:
    """``nb`` as JSON for a hand-off between the grader's processes: compact, by json's C encoder
    (``nbformat.writes`` indents and sorts in Python: 30 ms for a graded notebook of this course)."""
    return json.dumps(nb)


def execute(nb, scratch, limits, sandboxed=True):
    """Run ``nb`` in a sandboxed kernel; ``nb`` gets the outputs. Returns (indices of cells that
    ran, outcome, usage: what the caps recorded, :class:`autograder.sandbox.usage.Usage`).
    ``sandboxed=False`` exists only so the benchmark can measure what the sandbox costs."""
    if not sandboxed:
        ran, outcome, _ = _execute(nb, scratch, limits, QuietKernelManager)
        return ran, outcome, Usage()
    run = sandboxed_run(handoff(nb), scratch, limits)
    executed = run.notebook()
    nb.cells, nb.metadata = executed.cells, executed.metadata
    return set(run.ran), run.outcome, run.usage


def sandboxed_run(notebook_json, scratch, limits) -> "SandboxRun":
    """Run ``notebook_json`` with ``scratch`` as its folder: the kernel and its client run in an
    executor process inside the student's cgroup (:mod:`autograder.sandbox.client`); this process
    reads back only the capped notebook and what the run recorded, and passes the notebook on as
    the executor wrote it (parsed once, where it is judged)."""
    from autograder.sandbox.client import check_stopped, run_executor

    with Enclosure(limits, scratch) as enclosure:
        report = run_executor(notebook_json, scratch, limits, enclosure)
        enclosure.report(report["disk_peak"], report["disk_full"], report["traffic"])
    check_stopped(report, enclosure.usage, limits)
    shown = {int(k): v for k, v in report["shown"].items()}
    return SandboxRun(report["executed"], tuple(sorted(report["ran"])), report["outcome"], enclosure.usage,
                      tuple(report["cut"]), shown, tuple(report.get("timed_out", ())), report.get("stopped_in", -1))


def where_it_stopped(outcome, executor, meter=None) -> tuple:
    """(indices of the cells the cell time limit interrupted, index of the cell that was running
    when the kernel died or was stopped, else -1). Stopped for what it sent: the cell whose
    request the message over the cap answered (output arrives after its cell may have ended)."""
    stopped = executor.running if outcome != "ok" and executor.running is not None else -1
    if meter is not None and meter.over:
        stopped = executor.requests.get(meter.parent, stopped)
    return tuple(executor.timed_out), stopped


def run_metered(nb, scratch, limits, manager_for):
    """Run ``nb`` with a kernel manager ``manager_for(meter)`` whose client charges a traffic
    :class:`~autograder.sandbox.traffic.Meter` (in the executor process). Returns (ran, outcome,
    executor, meter)."""
    meter = Meter(limits.traffic_mb)
    ran, outcome, executor = _execute(nb, scratch, limits, manager_for(meter), meter)
    return ran, outcome, executor, meter


def _execute(nb, scratch, limits, manager, meter=None):
    executor = RecordingExecute(
        caps=OutputCaps.of(limits), timeout=limits.cell_timeout, interrupt_on_timeout=True, allow_errors=True,
        raise_on_iopub_timeout=False, kernel_manager_class=manager, shutdown_kernel="immediate",
        extra_arguments=["--HistoryManager.hist_file=:memory:", NO_EXECUTE_SLEEP],
    )
    expired = threading.Event()

    def stop():
        if executor.km is not None and executor.km.has_kernel:
            executor.km.provisioner.process.kill()  # bwrap; --die-with-parent takes the rest

    def kill():
        expired.set()
        stop()

    if meter is not None:
        meter.stop = stop
    watchdog = threading.Timer(limits.notebook_timeout, kill)
    watchdog.start()
    try:
        executor.preprocess(nb, {"metadata": {"path": str(scratch)}})
        outcome = "ok"
    except Exception as error:
        if meter is not None and meter.over:  # the kernel was stopped for what it sent
            outcome = "kernel_died"
        elif isinstance(error, (DeadKernelError, CellTimeoutError)):
            killed = expired.is_set() or isinstance(error, CellTimeoutError)
            outcome = "timeout" if killed else "kernel_died"
        elif expired.is_set():  # a kill mid-cell surfaces in several ways; anything else is ours
            outcome = "timeout"
        else:
            raise
    finally:
        watchdog.cancel()
    executor.settle(nb)
    if executor.shown is None:  # no test cell started: nothing hidden ever entered the kernel
        executor.shown = text_snapshot(nb)
    return executor.ran, outcome, executor


@dataclass(frozen=True)
class SandboxRun:
    """What one sandboxed execution hands back to the trusted side (plain data: it may come from
    a Dask worker)."""

    executed: str  # the executed notebook, JSON (outputs within the caps of Limits)
    ran: tuple  # indices of the cells that ran
    outcome: str  # "ok", "timeout" or "kernel_died"
    usage: Usage  # what the caps recorded
    cut: tuple = ()  # one line per cell and cap where output was cut, e.g. "quiz (cell 7): output cut at 1 MB per output"
    # {cell index: [{"kind": "out"|"err", "text": str}]}: the text outputs of the answer cells
    # before the first test cell started (see text_snapshot); the only learner output feedback may show
    shown: dict = field(default_factory=dict)
    timed_out: tuple = ()  # indices of the cells the cell time limit interrupted
    stopped_in: int = -1  # index of the cell running when the kernel died or was stopped (-1: none)

    def notebook(self) -> NotebookNode:
        """The executed notebook, as the executor wrote it (nbformat's own schema check would
        only log: the executor is the grader's)."""
        return nbformat.v4.reads(self.executed)


def run_in_sandbox(notebook_json: str, limits) -> SandboxRun:
    """Execute a restored notebook in a fresh, capped sandbox (the only step that runs student
    code; it may run on another machine)."""
    with tempfile.TemporaryDirectory(prefix="fg-") as scratch:
        return sandboxed_run(notebook_json, Path(scratch), limits)
