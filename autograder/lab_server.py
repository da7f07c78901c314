"""A throwaway JupyterLab server on a temp copy of the course, for the browser tests."""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

COURSE_PARTS = ["nbgrader_config.py", "source", "release", "notebooks"]
ROLES = ("learner", "instructor")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """JupyterLab on 127.0.0.1 with isolated config, settings and runtime folders.

    ``role="learner"`` copies lab/learner (what `make lab` uses) into the server's
    JUPYTER_CONFIG_DIR: nbgrader's instructor tools are off. ``role="instructor"`` keeps nbgrader's
    defaults (`make lab-instructor`): Create Assignment, the Formgrader, the course list.
    ``course`` serves an existing course folder as it is instead of a copy of ``root``'s parts.
    """

    def __init__(self, root, workdir, role="learner", course=None):
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {role!r}")
        self.root, self.role = Path(root), role
        self.workdir = Path(workdir)
        if course is None:
            self.course = self.workdir / "course"
            self.course.mkdir(parents=True)
            for part in COURSE_PARTS:
                src = self.root / part
                (shutil.copytree if src.is_dir() else shutil.copy2)(src, self.course / part)
        else:
            self.course = Path(course)
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = self._environment()
        self.process = None

    def _environment(self):
        env = dict(os.environ)
        home = self.workdir / "home"
        for name in ["JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR",
                     "JUPYTERLAB_WORKSPACES_DIR", "IPYTHONDIR", "MPLCONFIGDIR"]:
            env[name] = str(home / name.lower())
            Path(env[name]).mkdir(parents=True)
        # Render every cell (no virtual scrolling) so off-screen outputs can be read.
        tracker = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab" / "notebook-extension"
        tracker.mkdir(parents=True)
        (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
        if self.role == "instructor":  # as make lab-instructor: nbgrader's defaults, no news pop-up
            env["JUPYTER_CONFIG_PATH"] = str(self.root / "lab" / "instructor")
        if self.role == "learner":
            shutil.copytree(self.root / "lab" / "learner", env["JUPYTER_CONFIG_DIR"], dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("lab", "migrated"))  # settings `make lab` wrote
        # The kernel imports this checkout's fplab, not the one the venv's editable install names.
        env["PYTHONPATH"] = os.pathsep.join(p for p in [str(self.root), env.get("PYTHONPATH", "")] if p)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env.pop("NBGRADER_EXECUTION", None)
        return env

    def start(self, timeout=120):
        self.log = open(self.workdir / "lab.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
             f"--port={self.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}", "--allow-root",
             f"--ServerApp.root_dir={self.course}", "--ServerApp.open_browser=False"],
            cwd=self.course, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: see {self.workdir / 'lab.log'}")
            try:
                self.api("GET", "/api/status")
                return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("JupyterLab did not answer /api/status in time")

    def api(self, method, path):
        request = urllib.request.Request(f"{self.base}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def url(self, path):
        return f"{self.base}{path}?token={self.token}"

    def stop(self):
        if self.process and self.process.poll() is None:
            try:
                self.api("POST", "/api/shutdown")  # also shuts down every kernel
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()
