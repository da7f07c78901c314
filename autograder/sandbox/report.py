"""What crosses between the grading worker and its executor process: the notebook as JSON, and
the executor's report."""
import json
from dataclasses import asdict, dataclass, field


def handoff(nb) -> str:
    """``nb`` as JSON for a hand-off between the grader's processes: compact, by json's C encoder
    (``nbformat.writes`` indents and sorts in Python: 30 ms for a graded notebook of this course)."""
    return json.dumps(nb)


@dataclass(frozen=True)
class ExecutorReport:
    """What the executor process writes when the notebook's run ends (one bounded JSON file), or what
    the worker says in its place when the executor was stopped first (:meth:`stopped`)."""

    executed: str  # the executed notebook, JSON, outputs within the caps
    ran: list  # indices of the cells that ran, in order
    outcome: str  # "ok", "timeout" or "kernel_died"
    cut: list = field(default_factory=list)  # one line per cell and cap where output was cut
    shown: dict = field(default_factory=dict)  # the feedback snapshot (outputs.text_snapshot), by cell index
    timed_out: list = field(default_factory=list)  # cells the cell time limit interrupted
    stopped_in: int = -1  # the cell running when the kernel died or was stopped
    disk_peak: int = 0  # bytes the sandbox's disk held at most, as the executor sampled it
    disk_full: bool = False
    traffic: str = ""  # the traffic cap the kernel passed, or ""
    meter: dict = field(default_factory=dict)  # bytes and frames per channel (traffic.Meter.summary)
    reported: bool = True  # False: the executor ended before it wrote a report (stopped())
    returncode: int | None = None  # then: how the executor ended
    why: str = ""  # then: the last line of the executor's own log

    @classmethod
    def stopped(cls, notebook_json: str, timed_out: bool, returncode: int | None, why: str) -> "ExecutorReport":
        """The report of an executor that ended (or was stopped at its time limit) before it wrote one."""
        return cls(notebook_json, [], "timeout" if timed_out else "kernel_died", reported=False,
                   returncode=returncode, why=why)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "ExecutorReport":
        data = json.loads(text)
        data["shown"] = {int(k): v for k, v in data["shown"].items()}
        return cls(**data)
