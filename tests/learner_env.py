"""An environment every OS account can run, built from the learner kit the way the README's
"A class on one server" builds /opt/finite/venv: a system Python (not one under /root), a venv
outside any home, world-readable.

The pinned packages take minutes to install, so that venv is built once per kit pyproject.toml
under /opt/finite-test/ (FINITE_TEST_VENVS names another folder) and kept for the next run; the
kit's own package (fplab) is reinstalled from the given kit on every call.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

SYSTEM_PYTHON = Path("/usr/bin/python3")


def system_python() -> str:
    """Why the system Python cannot build the learners' venv, in one line; "" when it can."""
    if not SYSTEM_PYTHON.is_file():
        return f"no {SYSTEM_PYTHON}: the learners' venv needs a Python every account can run"
    done = subprocess.run([SYSTEM_PYTHON, "-c", "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"],
                          capture_output=True)
    return "" if done.returncode == 0 else f"{SYSTEM_PYTHON} is not a Python 3.11+ with venv and ensurepip"


def pip(venv: Path, *args) -> None:
    done = subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", *args],
                          capture_output=True, text=True, preexec_fn=lambda: os.umask(0o022))
    if done.returncode:
        raise RuntimeError(f"pip install {' '.join(map(str, args))} failed:\n{done.stderr[-3000:]}")


def learner_venv(kit: Path) -> Path:
    """A venv with the kit installed (not editable), readable and runnable by every account, with
    the learner's lab configuration in its etc/jupyter (the kit's submit among it), as the README has it."""
    folder = Path(os.environ.get("FINITE_TEST_VENVS", "/opt/finite-test"))
    key = hashlib.sha256((Path(kit) / "pyproject.toml").read_bytes()).hexdigest()[:12]
    venv = folder / f"venv-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / ".installed").is_file():
            pip(venv, "--no-deps", "--force-reinstall", kit)
        else:
            shutil.rmtree(venv, ignore_errors=True)
            print(f"building the learners' venv {venv} (kept for later runs; a few minutes)", file=sys.stderr)
            subprocess.run([SYSTEM_PYTHON, "-m", "venv", venv], check=True, preexec_fn=lambda: os.umask(0o022))
            pip(venv, kit)
            (venv / ".installed").touch()
        shutil.copytree(Path(kit) / "lab" / "learner", venv / "etc" / "jupyter", dirs_exist_ok=True)
        subprocess.run(["chmod", "-R", "a+rX", venv / "etc" / "jupyter"], check=True)
    return venv
