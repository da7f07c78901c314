"""The executor's notebook run: nbconvert's executor, recording which cells ran, capping outputs as
they arrive (:mod:`autograder.sandbox.outputs`) and taking the feedback snapshot before the first
test cell starts. Runs in the executor process (:mod:`autograder.sandbox.executor`), never in the
grading worker. Widget state and output-widget capture are not kept.
"""
import json
import threading
from pathlib import Path

import fastjsonschema
import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbconvert.preprocessors import ExecutePreprocessor
from nbformat import NotebookNode

from autograder.sandbox.cells import cell_label, is_test_cell
from autograder.sandbox.outputs import OutputCaps, is_observation, size_of, text_snapshot
from autograder.sandbox.traffic import Meter

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
    ran, outcome, executor = run_recorded(nb, scratch, limits, manager_for(meter), meter)
    return ran, outcome, executor, meter


def run_recorded(nb, scratch, limits, manager, meter=None):
    """Run ``nb`` (it gets the outputs) with kernels from ``manager``, within ``limits``' time limits;
    (indices of the cells that ran, outcome, the executor). ``meter``: stopped for what it sent."""
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
