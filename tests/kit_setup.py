"""The learner kit, set up the way its README says: for tests that need a learner's environment.

``kit_venv(course, path)`` builds the kit at ``path`` and runs the README's first command there
(``make env``) with none of the course's environment; it returns the kit venv's Python and leaves
what ``make env`` printed in ``make-env.log`` beside ``path``. Student accounts must be able to
reach ``path`` (a tmp_path under /tmp/pytest-of-root is root's alone).

This machine has no internet: pip finds torch's CPU wheel in a local folder (its find-links).
There ``make env`` takes it from a local index holding that wheel alone (TORCH_INDEX, the kit's
own switch), with pip's find-links emptied, so that torch can come from nowhere else.
"""
import glob
import html
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from autograder.kit import build_kit

COURSE_BIN = str(Path(sys.executable).parent)


def readme_commands(kit: Path) -> list:
    """The commands of the README's first ``bash`` block, comments dropped."""
    block = re.search(r"```bash\n(.*?)```", (kit / "README.md").read_text(), re.S)
    assert block, "the kit's README has no bash block"
    return [line.split("#")[0].strip() for line in block[1].splitlines() if line.split("#")[0].strip()]


def learner_env(**extra) -> dict:
    """This process's environment less everything that points at the course's own venv or make run."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
                        "NBGRADER_EXECUTION"}}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != COURSE_BIN)
    env.update(extra)
    return env


def find_links() -> list:
    """The local folders pip looks in for wheels (PIP_FIND_LINKS, else pip's configuration)."""
    links = os.environ.get("PIP_FIND_LINKS")
    if links is None:
        done = subprocess.run([sys.executable, "-m", "pip", "config", "get", "global.find-links"],
                              capture_output=True, text=True)
        links = done.stdout if done.returncode == 0 else ""
    return [link.removeprefix("file://") for link in links.split() if os.path.isdir(link.removeprefix("file://"))]


def local_torch_index(kit: Path, folder: Path) -> dict:
    """The environment for ``make env`` in ``kit`` to take torch's CPU build from an index in
    ``folder`` holding the local wheel pip would find, with no other place to find torch; {} where
    pip has no local CPU wheel of the kit's pin (``make env`` then uses PyTorch's own index)."""
    pins = tomllib.loads((kit / "pyproject.toml").read_text())["project"]["dependencies"]
    version = next(pin for pin in pins if pin.startswith("torch=="))[len("torch=="):]
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    wheels = [w for link in find_links() for w in glob.glob(os.path.join(link, f"torch-{version}+cpu-{tag}-*.whl"))]
    if not wheels:
        return {}
    (folder / "index" / "torch").mkdir(parents=True)
    (folder / "no-links").mkdir()
    link = Path(wheels[0]).as_uri()
    (folder / "index" / "torch" / "index.html").write_text(
        f'<!DOCTYPE html><html><body><a href="{html.escape(link)}">{Path(wheels[0]).name}</a></body></html>\n')
    return {"TORCH_INDEX": (folder / "index").as_uri(), "PIP_FIND_LINKS": str(folder / "no-links")}


def kit_venv(course, path, timeout=1800) -> Path:
    """Build the kit at ``path``, run its README's set-up command there, return the venv's Python."""
    path = Path(path)
    build_kit(course, path)
    setup = readme_commands(path)[0]
    torch = local_torch_index(path, path.parent / "torch-index")
    done = subprocess.run(setup.split(), cwd=path, env=learner_env(**torch), capture_output=True, text=True,
                          timeout=timeout)
    (path.parent / "make-env.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, f"{setup} failed in the kit:\n{(done.stdout + done.stderr)[-3000:]}"
    return path / ".venv" / "bin" / "python"
