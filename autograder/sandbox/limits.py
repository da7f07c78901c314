"""The sandbox's limits: one frozen :class:`Limits` per run, configured in one place.

:class:`SandboxLimits` wraps it in traitlets, like nbgrader's own options: ``c.SandboxLimits.memory_mb
= 8192`` in ``nbgrader_config.py`` holds for ``nbgrader autograde``, the Formgrader, ``grade`` and
``check``; ``grade``'s flags (:func:`flags`: one per field that names one, with the field's help)
override it for one run. Every path builds a ``Limits``, so its check (:meth:`Limits.__post_init__`)
holds for all of them.
"""
from dataclasses import dataclass, field, fields

from traitlets import Float, Integer
from traitlets.config import Configurable

MB = 1024 * 1024


def _limit(default, help, flag=None, unit="", low=0.0, high=float("inf")):
    """A limit: its default, help, ``grade``'s flag for it (if any) and the range it must lie in."""
    return field(default=default, metadata={"help": help, "flag": flag, "unit": unit, "range": (low, high)})


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission."""

    cell_timeout: int = _limit(60, "Seconds per cell (the cell is interrupted).", "--cell-timeout", "S", 1)
    notebook_timeout: int = _limit(600, "Seconds for the whole notebook (the sandbox is killed).", "--timeout", "S", 1)
    memory_mb: int = _limit(4096, "MB of memory for everything one submission runs, together "
                                  "(also RLIMIT_DATA per process).", "--memory-mb", "M", 1)
    max_procs: int = _limit(64, "Processes and threads of one submission, together.", "--max-procs", "N", 1)
    disk_mb: int = _limit(512, "MB one submission may write: /tmp with its working folder (and /dev/shm).",
                          "--disk-mb", "M", 1)
    cpus: float = _limit(1.0, "CPU cores for everything one submission runs, together (a CFS quota).", "--cpus",
                         "N", 0.01, 1024)
    # Output bytes kept (autograder.sandbox.outputs.OutputCaps); the judge's observations get 4x.
    # The largest solved notebook keeps 0.45 MB in one output, 1.7 MB in one cell, 2.8 MB in all,
    # all of it observations (05_float16_range).
    output_mb: float = _limit(1.0, "MB of output kept per output (text, images, HTML).")
    cell_output_mb: float = _limit(2.0, "MB of output kept per cell.")
    notebook_output_mb: float = _limit(8.0, "MB of output kept per notebook.")
    traffic_mb: int = _limit(256, "MB the kernel may send on each channel (shell, iopub, control), counted "
                                  "before decoding (autograder.sandbox.traffic); past it the kernel is stopped.")

    def __post_init__(self):
        """ValueError, naming the limit and its range, for a value out of it."""
        for spec in fields(self):
            value, (low, high) = getattr(self, spec.name), spec.metadata["range"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                bound = f"between {low:g} and {high:g}" if high < float("inf") else f"of at least {low:g}"
                raise ValueError(f"{spec.metadata['flag'] or spec.name} {value!r}: give a number {bound}")


def flags() -> list:
    """[(flag, the Limits field, its type, its unit, its help)] for the limits ``grade`` takes as flags."""
    return [(spec.metadata["flag"], spec.name, spec.type, spec.metadata["unit"], spec.metadata["help"])
            for spec in fields(Limits) if spec.metadata["flag"]]


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
