"""The executor process: the only process that talks to a student's kernel.

For each submission the grading worker's executor server (:mod:`autograder.sandbox.forkserver`,
which has imported all this module needs) forks an executor that first enters the *student's
cgroup*, so its memory, processes and CPU count against that student's caps (:func:`child`). The
executor starts the kernel, runs the notebook (:mod:`autograder.sandbox.recording`) and writes one
bounded JSON report (:class:`~autograder.sandbox.report.ExecutorReport`). A kernel that floods
the executor gets it stopped (a traffic cap) or OOM-killed inside that cgroup: either way
``resource_limit`` for that student, and the worker's memory does not move.
"""
import os
import pickle
import socket
from pathlib import Path

import IPython  # noqa: F401  (each executor imported ipykernel.kernelspec and IPython as it looked
import ipykernel.kernelspec  # noqa: F401  up the python3 kernel spec: 0.1 s of CPU, now once per server)
import nbformat
from jupyter_client.provisioning.factory import KernelProvisionerFactory

from autograder.sandbox import forkserver
from autograder.sandbox.bubblewrap import kernel_manager_class
from autograder.sandbox.late_imports import late_imports
from autograder.sandbox.recording import compile_output_checks, run_metered, where_it_stopped
from autograder.sandbox.report import ExecutorReport, handoff

# Done once in the executor server rather than in every executor it forks: nbformat compiles its
# schema's validator at a process's first read (50 ms of CPU), jupyter_client reads every installed
# package's entry points for its kernel provisioners at the first kernel (20 ms).
nbformat.validate(nbformat.v4.new_notebook())
KernelProvisionerFactory.instance()
compile_output_checks()


def child(request, fds):
    """In a process the executor server forked: enter the student's cgroup, then run the job
    (``fds``: the kernel server's socket, where kernels run unprivileged)."""
    forkserver.die_with_parent()
    os.setsid()
    for path in request["procs"]:
        with open(path, "w") as procs:
            procs.write(f"{os.getpid()}\n")
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd in (1, 2):
        os.dup2(log, fd)
    os.chdir(request["cwd"])
    kernels = forkserver.Channel(socket.socket(fileno=fds[0])) if fds else None
    main(request["job"], request["result"], kernels)


def main(job_path, result_path, kernels=None):
    """Run the job the worker wrote; write the report to ``result_path`` (atomically).
    ``kernels``: the kernel server's channel (None: each kernel is a fresh process)."""
    job = pickle.loads(Path(job_path).read_bytes())
    Path(job_path).unlink()
    scratch, limits, enclosure = Path(job["scratch"]), job["limits"], job["enclosure"]
    nb = nbformat.reads(job["notebook"], as_version=4)
    ran, outcome, executor, meter = run_metered(
        nb, scratch, limits,
        lambda meter: kernel_manager_class(scratch, limits, enclosure, meter, kernels, late_imports(nb)))
    disk_peak, disk_full = enclosure.stop_sampling()
    timed_out, stopped_in = where_it_stopped(outcome, executor, meter)
    report = ExecutorReport(handoff(nb), sorted(ran), outcome, list(executor.caps.notes.values()), executor.shown,
                            list(timed_out), stopped_in, disk_peak, disk_full, meter.over, meter.summary())
    partial = Path(f"{result_path}.part")
    partial.write_text(report.to_json())
    partial.rename(result_path)
