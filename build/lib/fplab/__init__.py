"""Learner-side helpers for the Finite course: device gating, seeding, environment summary.

Nothing here holds a solution. ``%load_ext fplab`` (in every released notebook's header) calls
:func:`setup_notebook` and prints one line describing the environment.
"""
from fplab.device import cuda_available, default_device, environment_summary
from fplab.notebook import GPU_SKIP_MESSAGE, seed_all, setup_notebook

__all__ = [
    "GPU_SKIP_MESSAGE",
    "cuda_available",
    "default_device",
    "environment_summary",
    "load_ipython_extension",
    "seed_all",
    "setup_notebook",
]


def load_ipython_extension(shell):
    """Entry point of ``%load_ext fplab``."""
    setup_notebook(shell=shell)
    print(environment_summary())
