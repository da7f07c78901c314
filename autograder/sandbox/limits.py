"""The sandbox's limits: one frozen :class:`Limits` per run, configured in one place.

:class:`SandboxLimits` wraps it in traitlets, like nbgrader's own options: ``c.SandboxLimits.memory_mb
= 8192`` in ``nbgrader_config.py`` holds for ``nbgrader autograde``, the Formgrader, ``grade`` and
``check``; ``grade``'s flags override it for one run.
"""
from dataclasses import dataclass, field, fields

from traitlets import Float, Integer
from traitlets.config import Configurable

MB = 1024 * 1024


def _limit(default, help):
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission."""

    cell_timeout: int = _limit(60, "Seconds per cell (the cell is interrupted).")
    notebook_timeout: int = _limit(600, "Seconds for the whole notebook (the sandbox is killed).")
    memory_mb: int = _limit(4096, "MB of memory for everything one submission runs, together "
                                  "(also RLIMIT_DATA per process).")
    max_procs: int = _limit(64, "Processes and threads of one submission, together.")
    disk_mb: int = _limit(512, "MB one submission may write: /tmp with its working folder (and /dev/shm).")
    cpus: float = _limit(1.0, "CPU cores for everything one submission runs, together (a CFS quota).")
    # Output bytes kept (autograder.sandbox.outputs.OutputCaps); the judge's observations get 4x.
    # The largest solved notebook keeps 0.45 MB in one output, 1.7 MB in one cell, 2.8 MB in all,
    # all of it observations (05_float16_range).
    output_mb: float = _limit(1.0, "MB of output kept per output (text, images, HTML).")
    cell_output_mb: float = _limit(2.0, "MB of output kept per cell.")
    notebook_output_mb: float = _limit(8.0, "MB of output kept per notebook.")
    traffic_mb: int = _limit(256, "MB the kernel may send on each channel (shell, iopub, control), counted "
                                  "before decoding (autograder.sandbox.traffic); past it the kernel is stopped.")


def _trait(spec):
    kind = Float if spec.type is float else Integer
    return kind(spec.default, help=spec.metadata.get("help", "")).tag(config=True)


def _snapshot(self) -> Limits:
    """The configured values, frozen for one run."""
    return Limits(**{spec.name: getattr(self, spec.name) for spec in fields(Limits)})


SandboxLimits = type("SandboxLimits", (Configurable,), {
    "__doc__": "The sandbox's limits as configurable traits, one per field of :class:`Limits`.",
    **{spec.name: _trait(spec) for spec in fields(Limits)},
    "limits": _snapshot,
})
