"""The learner kit, set up the way its README says: for tests that need a learner's environment.

``kit_venv(course, path)`` builds the kit at ``path`` and runs the README's first command there
(``make env``) with none of the course's environment; it returns the kit venv's Python. Student
accounts must be able to reach ``path`` (a tmp_path under /tmp/pytest-of-root is root's alone).
"""
import os
import re
import subprocess
import sys
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


def kit_venv(course, path, timeout=1800) -> Path:
    """Build the kit at ``path``, run its README's set-up command there, return the venv's Python."""
    path = Path(path)
    build_kit(course, path)
    setup = readme_commands(path)[0]
    done = subprocess.run(setup.split(), cwd=path, env=learner_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{setup} failed in the kit:\n{(done.stdout + done.stderr)[-3000:]}"
    return path / ".venv" / "bin" / "python"
