"""What the executor keeps of a kernel's outputs: byte budgets where outputs arrive, and the
text snapshot feedback may show.

* **Output bytes are capped where they arrive** (:class:`OutputCaps`): per output, per cell and
  per notebook, from ``Limits``. What is over is replaced by a short note ("[output cut at 1 MB
  per output]"), and a line for the trusted side goes to ``SandboxRun.cut``. The judge's
  observations (display data of ``fplab.observe.MIME``) have their own, larger budget (they are
  made by the tests, not by the learner; the largest solved notebook of the course makes 1.7 MB in
  one cell); an observation over it is dropped whole, never cut (the judge then finds it missing).
  A cell keeps at least one short stub of its stderr and of its error, so a cut never turns a
  failing test cell into a passing one.
* **What feedback may show is snapshotted before any hidden test runs** (:func:`text_snapshot`):
  a text-only copy of the outputs of every earlier answer cell (stream text, ``text/plain``,
  ``ename: evalue``; no images, HTML or widget state), bounded in size.
"""
from nbformat import NotebookNode

from autograder.sandbox.cells import is_answer_cell
from autograder.sandbox.limits import MB

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
