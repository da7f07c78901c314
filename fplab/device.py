"""Which device a cell can use, and a one-line description of the learner's environment."""
import platform

import torch


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
