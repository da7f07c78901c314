"""The executor process: the only process that talks to a student's kernel.

The grading worker never holds a byte the kernel sent. For each submission it starts this module
as a process of its own *inside the student's cgroup* (:meth:`Enclosure.launcher`), so the
executor's memory, processes and CPU count against that student's caps; the executor starts the
kernel, counts what arrives on every channel before decoding it (:mod:`autograder.sandbox.traffic`),
caps the outputs it keeps (:mod:`autograder.sandbox.execute`), and writes one bounded JSON file:
the capped executed notebook and what the run recorded. A kernel that floods the executor gets it
stopped (a traffic cap) or OOM-killed inside that cgroup: either way ``resource_limit`` for that
student, and the worker's memory does not move.

Run as ``python -m autograder.sandbox.client JOB RESULT`` (JOB: a pickle the worker wrote).
"""
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":
    # jsonschema (through nbformat) imports rfc3987_syntax if it can, which builds a grammar at
    # import: seconds of CPU per student, for IRI formats no notebook schema uses.
    sys.modules["rfc3987_syntax"] = None

import nbformat  # noqa: E402

from autograder.sandbox.bubblewrap import MB, SandboxError  # noqa: E402
from autograder.sandbox.caps import limit_outcome  # noqa: E402

GRACE = 60  # seconds the executor gets past the notebook's time limit to stop the kernel and write
TAIL = 2000  # bytes of the executor's own stderr a grader error quotes


def result_bound(notebook_json, limits) -> int:
    """The most bytes a result file may take: the notebook, its capped outputs (JSON escapes
    counted at worst), the snapshot and some room; a larger file is not read."""
    from autograder.sandbox.execute import OBSERVATION_FACTOR, SHOWN_TOTAL

    outputs = limits.notebook_output_mb * (1 + OBSERVATION_FACTOR) * MB
    return round(2 * len(notebook_json.encode()) + 6 * (outputs + SHOWN_TOTAL) + 4 * MB)


def run_executor(notebook_json, scratch, limits, enclosure) -> dict:
    """Execute ``notebook_json`` in an executor process inside ``enclosure``'s cgroup. Returns
    the executor's report (see :func:`main`); when the executor was stopped before it reported,
    a report with no outputs that says so. SandboxError when it failed for a reason of ours."""
    scratch = Path(scratch)
    job, result, log = scratch / "job.pickle", scratch / "result.json", scratch / "executor.log"
    job.write_bytes(pickle.dumps({"notebook": notebook_json, "scratch": str(scratch), "limits": limits,
                                  "enclosure": enclosure}))
    package_parent = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    argv = enclosure.launcher() + [sys.executable, "-m", "autograder.sandbox.client", str(job), str(result)]
    stopped = False
    with open(log, "wb") as errors:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors, env=env,
                                   cwd=scratch, start_new_session=True)
        try:
            process.wait(timeout=limits.notebook_timeout + GRACE)
        except subprocess.TimeoutExpired:
            stopped = True
            process.kill()
            process.wait()
    size = result.stat().st_size if result.exists() else -1
    if size > result_bound(notebook_json, limits):
        raise SandboxError(f"the executor's result is {size / MB:.0f} MB, over its bound")
    if size >= 0 and not stopped:
        return json.loads(result.read_text())
    return {"executed": notebook_json, "ran": [], "outcome": "timeout" if stopped else "kernel_died", "cut": [],
            "shown": {}, "disk_peak": 0, "disk_full": False, "traffic": "", "returncode": process.returncode,
            "why": _tail(log)}


def check_stopped(report, usage, limits):
    """SandboxError when the executor ended without a report and no cap explains it (its own
    failure, not the student's)."""
    if "returncode" in report and report["outcome"] != "timeout" and limit_outcome(usage, limits) is None:
        raise SandboxError(f"the executor ended without a result (exit {report['returncode']}): {report['why']}")


def _tail(path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - TAIL))
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return text.splitlines()[-1] if text else "no message"


def _die_with_parent():
    """SIGKILL this process when the worker that started it dies (Linux ``PR_SET_PDEATHSIG``),
    so the kernel (``bwrap --die-with-parent``) goes too."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the worker died before that took effect
        os._exit(1)


def main(job_path, result_path):
    """Run the job the worker wrote; write the report to ``result_path`` (atomically)."""
    from autograder.sandbox.bubblewrap import kernel_manager_class
    from autograder.sandbox.execute import run_metered, where_it_stopped

    _die_with_parent()
    job = pickle.loads(Path(job_path).read_bytes())
    Path(job_path).unlink()
    scratch, limits, enclosure = Path(job["scratch"]), job["limits"], job["enclosure"]
    nb = nbformat.reads(job["notebook"], as_version=4)
    ran, outcome, executor, meter = run_metered(
        nb, scratch, limits, lambda meter: kernel_manager_class(scratch, limits, enclosure, meter))
    disk_peak, disk_full = enclosure.stop_sampling()
    timed_out, stopped_in = where_it_stopped(outcome, executor, meter)
    report = {"timed_out": list(timed_out), "stopped_in": stopped_in, "executed": nbformat.writes(nb), "ran": sorted(ran), "outcome": outcome,
              "cut": list(executor.caps.notes.values()), "shown": executor.shown,
              "disk_peak": disk_peak, "disk_full": disk_full, "traffic": meter.over, "meter": meter.summary()}
    partial = Path(f"{result_path}.part")
    partial.write_text(json.dumps(report))
    partial.rename(result_path)


if __name__ == "__main__":
    main(*sys.argv[1:3])
