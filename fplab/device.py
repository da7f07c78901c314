"""Which device a cell can use, a one-line description of the learner's environment, and a check of
the installed versions against the course's pins (:mod:`fplab.pins`)."""
import platform
from importlib import metadata
from pathlib import Path

import torch

from fplab.pins import PYPROJECT, pinned_versions


def cuda_available() -> bool:
    """True when PyTorch can use a CUDA GPU."""
    return torch.cuda.is_available()


def default_device() -> torch.device:
    """``cuda`` when a GPU is usable, else ``cpu``."""
    return torch.device("cuda" if cuda_available() else "cpu")


def environment_summary() -> str:
    """One line: Python and torch versions and the device the course will use."""
    if cuda_available():
        device = f"CUDA GPU: {torch.cuda.get_device_name(0)} (GPU-optional cells will run)"
    else:
        device = "CPU only (GPU-optional cells will print a skip line)"
    return f"Python {platform.python_version()} · torch {torch.__version__} · {device}"


CHECKED_PACKAGES = ("torch", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "nbgrader")


def version_check(pyproject: Path = PYPROJECT) -> str:
    """One line per course package: the installed version, the pinned one, and whether they agree.

    A local build label is not a difference: torch ``2.13.0+cpu`` is the pinned ``2.13.0``.
    """
    pins = pinned_versions(pyproject)
    if not pins:
        return f"no pins to compare with: {pyproject} not found (fplab is not running from the course folder)"
    lines = []
    for package in CHECKED_PACKAGES:
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            installed = "missing"
        pinned = pins.get(package, "not pinned")
        verdict = "ok" if installed.split("+")[0] == pinned else "DIFFERS: printed figures may differ from the notebooks' text"
        lines.append(f"{package:<11} {installed:<10} pinned {pinned:<10} {verdict}")
    return "\n".join(lines)
