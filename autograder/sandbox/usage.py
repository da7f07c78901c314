"""What the caps recorded for one submission, and what it means for its status."""
from dataclasses import dataclass

from autograder.statuses import Status

MEMORY_ERRORS = ("MemoryError", "can't allocate memory", "std::bad_alloc")
DISK_ERRORS = ("No space left on device", "File too large", "Disk quota exceeded")


@dataclass(frozen=True)
class Usage:
    """What the caps recorded for one submission (zeros when nothing could be recorded)."""

    mechanism: str = "none"
    oom_kills: int = 0  # processes the memory cap's OOM killer stopped
    memory_peak_mb: float = 0.0  # peak total as the cgroup saw it (page cache included)
    procs_refused: int = 0  # forks / thread starts refused by the process cap
    disk_peak_mb: float = 0.0  # most bytes seen on the sandbox's tmpfs mounts together
    disk_full: bool = False  # a tmpfs was seen (nearly) full
    cpu_seconds: float = 0.0  # CPU time of everything the submission ran (0 where not accounted)
    cpu_throttled: int = 0  # CFS periods in which the CPU cap held it back
    uid: int = -1  # the uid its kernel ran as (-1: the grader's own)
    traffic: str = ""  # the traffic cap the kernel passed (autograder.sandbox.traffic.Meter.over), or ""


def limit_outcome(usage, limits, errors=""):
    """``(Status.RESOURCE_LIMIT, note)`` when a cap stopped the submission, else None.

    ``usage``: the :class:`Usage` that :class:`~autograder.sandbox.enclosure.Enclosure` records;
    ``errors``: the notebook's error text (:func:`notebook_errors`), for what only shows there
    (a single allocation over the total refused by ``RLIMIT_DATA``, a full disk).
    """
    if usage.oom_kills or any(marker in errors for marker in MEMORY_ERRORS):
        return Status.RESOURCE_LIMIT, f"used more than {limits.memory_mb} MB in total"
    if usage.procs_refused:
        return Status.RESOURCE_LIMIT, f"started more than {limits.max_procs} processes"
    if usage.disk_full or any(marker in errors for marker in DISK_ERRORS):
        return Status.RESOURCE_LIMIT, f"wrote more than {limits.disk_mb} MB"
    if usage.traffic:
        return Status.RESOURCE_LIMIT, f"{usage.traffic} (the cap is {limits.traffic_mb} MB per channel)"
    return None


def notebook_errors(nb):
    """Every error output of ``nb`` as ``ename: evalue`` lines."""
    return "\n".join(f"{out.get('ename', '')}: {out.get('evalue', '')}"
                     for cell in nb.cells if cell.cell_type == "code"
                     for out in cell.get("outputs", []) if out.get("output_type") == "error")
