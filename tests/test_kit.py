"""The learner kit: exactly what students get, no solution or hidden-test line in any file or
archive, the course's pins, and (slow) a fresh venv set up from its README that runs its notebooks."""
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course, CourseError, hidden_regions
from autograder.kit import LEARNER_PACKAGES, build_kit, problems, secret_lines
from autograder.source_text import weight
from conftest import ASSIGNMENTS, ROOT, run_cli
from kit_setup import learner_env, readme_commands
from fplab.pins import pins

# Named here, not imported from the kit module: what must never reach students.
NEVER = {"source", "cases", "autograder", "tests", ".finite", "gradebook.db", "AUTHORING.md"}
TOP_LEVEL = {"README.md", "Makefile", ".gitignore", "pyproject.toml", "environment.yml",
             "release", "notebooks", "fplab", "lab"}


@pytest.fixture(scope="module")
def kit(course, tmp_path_factory):
    out = tmp_path_factory.mktemp("kit") / "finite-kit"
    out.mkdir()  # an existing empty folder is filled
    build_kit(course, out)
    return out


@pytest.fixture(scope="module")
def secrets(course):
    return secret_lines(course)


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_kit_holds_what_students_get_and_nothing_else(kit):
    assert {p.name for p in kit.iterdir()} == TOP_LEVEL
    assert sorted(p.name for p in (kit / "release").iterdir()) == ASSIGNMENTS
    for assignment_id in ASSIGNMENTS:
        ours = kit / "release" / assignment_id / f"{assignment_id}.ipynb"
        assert ours.read_bytes() == (ROOT / "release" / assignment_id / f"{assignment_id}.ipynb").read_bytes()
    assert files(kit / "notebooks") == {k: v for k, v in files(ROOT / "notebooks").items() if k.endswith(".ipynb")
                                        and ".ipynb_checkpoints" not in k}
    assert files(kit / "fplab") == {k: v for k, v in files(ROOT / "fplab").items() if k.endswith(".py")
                                    and "__pycache__" not in k}
    assert set(files(kit / "lab")) == {"learner/jupyter_server_config.json", "learner/labconfig/page_config.json",
                                       "learner/nbgrader_config.py"}


def test_kit_holds_no_forbidden_path(kit):
    found = [p.relative_to(kit).as_posix() for p in kit.rglob("*") if NEVER & set(p.relative_to(kit).parts)
             or p.relative_to(kit).as_posix() == "nbgrader_config.py"]  # the course's; the learner's is in lab/
    assert found == []


def test_every_assignment_has_lines_to_look_for(secrets):
    per_assignment = {i: sum(origin == i for origin in secrets.values()) for i in ASSIGNMENTS}
    assert min(per_assignment.values()) >= 20, per_assignment


def test_kit_holds_no_solution_or_hidden_test_line(kit, secrets):
    assert problems(kit, secrets) == []


def quiz_key(course):
    """The answer lines of 01's quiz solution: four short lines, each below the per-line weight alone."""
    nb = course.source_notebook(ASSIGNMENTS[0])
    quiz = next(c.source for c in nb.cells if re.search(r"^q1 = ", c.source, re.M))
    return "\n".join(line for line in quiz.splitlines() if re.match(r"q\d = ", line))


def solved_without_markers(course):
    """A solved notebook with nbgrader's region markers taken out, as JSON text."""
    nb = course.source_notebook(ASSIGNMENTS[1])
    for cell in nb.cells:
        cell.source = "\n".join(l for l in cell.source.splitlines() if not re.match(r"\s*#+\s*(BEGIN|END) ", l))
    return nbformat.writes(nb)


def heaviest_line(secrets):
    return max(secrets, key=weight)


def zipped(name, data):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def tarred(name, text):
    data, buffer = text.encode(), io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


PLANTS = {
    "a source notebook among the explorers": lambda course, s: (
        "notebooks/05_extra.ipynb", (course.source_path(ASSIGNMENTS[0])).read_bytes()),
    "a solved notebook, markers removed, in a zip": lambda course, s: (
        "notebooks/extra.zip", zipped("extra.ipynb", solved_without_markers(course))),
    "a wheel whose module holds one solution line": lambda course, s: (
        "wheels/fplab_extra-0.1-py3-none-any.whl", zipped("fplab_extra/__init__.py", f"x = 1\n{heaviest_line(s)}\n")),
    "the quiz key of 01 in a tar.gz inside a zip": lambda course, s: (
        "notebooks/answers.zip", zipped("inner.tar.gz", tarred("key.txt", quiz_key(course)))),
    "one solution line in fplab": lambda course, s: (
        "fplab/extra.py", f"# {heaviest_line(s)}\n".encode()),
    "a forbidden folder": lambda course, s: ("notebooks/source/readme.txt", b"nothing secret"),
    "the gradebook": lambda course, s: ("gradebook.db", b""),
    "the course's nbgrader configuration": lambda course, s: ("nbgrader_config.py", b"c = get_config()\n"),
}


@pytest.mark.parametrize("plant", PLANTS)
def test_the_scan_finds_a_planted_leak(course, secrets, tmp_path, plant):
    """Each plant alone in a folder (the whole kit is scanned above): the scan reports it."""
    name, data = PLANTS[plant](course, secrets)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_bytes(data)
    found = problems(tmp_path, secrets)
    assert found and all(line.startswith(name.split("/")[0]) for line in found), found


def test_the_scan_ignores_lines_that_say_nothing(course, secrets, tmp_path):
    """Short lines every program has, and hidden-region lines the notebook also shows outside its
    regions (a visible test's input, say), are no leak."""
    trivial = ["pass", "return x", "return out", "else:", "if n < 1:", "import torch"]
    text = "\n".join(cell.source for cell in course.source_notebook(ASSIGNMENTS[0]).cells)
    regions = hidden_regions(text)
    outside = text
    for region in regions:
        outside = outside.replace(region, "")
    shown = {line.strip() for region in regions for line in region.splitlines()
             if len(line.strip()) > 20 and line.strip() in outside}
    assert shown, "01 repeats no hidden-region line outside its regions: pick another example"
    (tmp_path / "common.py").write_text("\n".join(trivial + sorted(shown)) + "\n")
    assert problems(tmp_path, secrets) == []
    assert not any(line in secrets for line in ["pass", "return x", "else:", "import torch", *shown])


def test_building_a_leaking_kit_writes_nothing(tmp_path):
    """The kit command scans before it moves the kit into place: a course whose notebooks/ holds a
    source notebook gets no kit, and no half-built folder is left."""
    root = tmp_path / "course"
    root.mkdir()
    for name in ("nbgrader_config.py", "pyproject.toml", "source", "release", "fplab", "lab"):
        (root / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".*"))
    shutil.copy2(ROOT / "source" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb", root / "notebooks" / "oops.ipynb")
    out = tmp_path / "out" / "kit"
    with pytest.raises(CourseError, match="would leak: notebooks/oops.ipynb"):
        build_kit(Course(root), out)
    assert list((tmp_path / "out").iterdir()) == []


def test_a_non_empty_out_is_refused_with_one_line_and_left_alone(tmp_path):
    out = tmp_path / "kit"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    done = run_cli("kit", str(out))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: {out} exists and holds more than a .git folder: "
                                                "give a new, empty or git-only folder for the kit"]
    assert files(tmp_path) == {"kit/notes.txt": b"mine"}


def test_a_kit_goes_into_a_git_repository_and_keeps_it(tmp_path):
    """An instructor publishing the kit from its own repository: the folder holds .git alone."""
    out = tmp_path / "kit"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    done = run_cli("kit", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert (out / "README.md").is_file() and (out / "release").is_dir()


def test_the_kit_pins_the_course_versions(kit):
    course_pins = pins(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    kit_project = tomllib.loads((kit / "pyproject.toml").read_text())
    kit_pins = pins(kit_project["project"]["dependencies"])
    assert {"torch", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "nbgrader"} <= set(kit_pins)
    assert kit_pins == {name: course_pins[name] for name in LEARNER_PACKAGES}
    assert pins((kit / "environment.yml").read_text().splitlines()) == kit_pins
    from setuptools import find_packages

    found = find_packages(kit, **kit_project["tool"]["setuptools"]["packages"]["find"])
    assert set(found) == {"fplab"} | {f"fplab.{p.name}" for p in (kit / "fplab").iterdir() if (p / "__init__.py").is_file()}
    assert "fplab.rules" in found  # every subpackage installs, not only the top one


def test_the_readme_names_two_commands_that_the_makefile_has(kit):
    commands = readme_commands(kit)
    assert commands == ["make env", "make lab"]
    makefile = (kit / "Makefile").read_text()
    assert re.search(r"^env:", makefile, re.M) and re.search(r"^lab:", makefile, re.M)
    assert "lab/learner" in makefile and "00_start_here.ipynb" in makefile


def test_the_readme_and_the_start_page_say_which_file_to_hand_in(kit):
    first = f"release/{ASSIGNMENTS[0]}/{ASSIGNMENTS[0]}.ipynb"
    assert (kit / first).is_file()
    readme = (kit / "README.md").read_text()
    start = "\n".join(c.source for c in nbformat.read(kit / "notebooks" / "00_start_here.ipynb", as_version=4).cells)
    for text in (readme[readme.index("## Handing in"):], start[start.index("## Handing in"):]):
        assert f"**`{first}`**" in text and "`release/NN_topic/NN_topic.ipynb`" in text
        assert "upload" in text and "LMS" in text  # a class that collects files
        assert "Assignment List" in text and "no exchange" in text  # a class with an exchange, and without


def make_dry_run(kit, *args):
    done = subprocess.run(["make", "-n", "env", *args], cwd=kit, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def test_make_env_takes_torchs_cpu_build_unless_told_otherwise_and_the_readme_says_so(kit):
    readme = (kit / "README.md").read_text()
    pin = pins((kit / "environment.yml").read_text().splitlines())["torch"]
    cpu_index = "https://download.pytorch.org/whl/cpu"
    assert f"`{pin}+cpu`" in readme and f"`{pin}+cu130`" in readme and "15 `nvidia-*` wheels" in readme
    assert "about 1.5 GB" in readme and "about 5.1 GB" in readme and "1.4 GB" not in readme
    assert cpu_index in readme and "TORCH=cuda" in readme and "TORCH_INDEX" in readme
    rc, cpu = make_dry_run(kit, "TORCH=cpu")
    assert rc == 0 and f'pip install --quiet "torch=={pin}" --index-url {cpu_index}' in cpu, cpu
    rc, mirror = make_dry_run(kit, "TORCH=cpu", "TORCH_INDEX=file:///srv/mirror")
    assert rc == 0 and "--index-url file:///srv/mirror" in mirror
    rc, cuda = make_dry_run(kit, "TORCH=cuda")
    assert rc == 0 and "--index-url" not in cuda and "pip install --quiet -e ." in cuda
    rc, wrong = make_dry_run(kit, "TORCH=gpu")
    assert rc != 0 and "TORCH is cpu or cuda, not gpu" in wrong
    if shutil.which("nvidia-smi") is None:
        assert make_dry_run(kit)[1] == cpu  # no GPU here: the CPU build, untold


# --- slow: a fresh venv from the kit -----------------------------------------------------------

RUN_NOTEBOOKS = """
import json, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient

found = {}
for path in map(Path, sys.argv[1:]):
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys, fplab; print(sys.prefix); print(fplab.__file__)"))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    found[path.name] = ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]
print(json.dumps(found))
"""


def kit_run_env(kit, tmp_path):
    home = tmp_path / "home"
    names = ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR",
             "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR")
    for name in names:
        (home / name.lower()).mkdir(parents=True, exist_ok=True)
    return learner_env(**{name: str(home / name.lower()) for name in names})


@pytest.mark.slow
def test_a_fresh_kit_venv_runs_a_release_notebook_and_the_start_page(kit_env, tmp_path):
    kit, python = kit_env
    notebooks = [kit / "release" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb", kit / "notebooks" / "00_start_here.ipynb"]
    done = subprocess.run([str(python), "-c", RUN_NOTEBOOKS, *map(str, notebooks)], cwd=kit,
                          env=kit_run_env(kit, tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = json.loads(done.stdout.strip().splitlines()[-1])
    for name, cells in outputs.items():
        prefix, fplab_file = cells[-1].split()
        assert Path(prefix) == kit / ".venv", name  # the kit's own venv ran the kernel
        assert Path(fplab_file) == kit / "fplab" / "__init__.py", name
    release = "\n".join(outputs[notebooks[0].name])
    assert "not attempted" in release  # the summary table ran: the stubs count as not attempted
    start = "\n".join(outputs["00_start_here.ipynb"])
    checked = [line for line in start.splitlines() if " pinned " in line]  # fplab's version check
    assert any(line.startswith("torch ") for line in checked), start
    assert all(line.endswith(" ok") for line in checked), start


@pytest.mark.slow
def test_make_env_installed_torchs_cpu_build_without_a_warning(kit_env):
    kit, python = kit_env
    log = (kit.parent / "make-env.log").read_text()
    assert "Warning" not in log.replace("WARNING: Location", ""), log  # pip's notes on this machine's local indexes
    built = re.search(r"^torch==\S+: the (cpu|cuda) build", log, re.M)
    assert built, log
    done = subprocess.run([str(python), "-c", "import torch, importlib.metadata as m; print(torch.__version__); "
                           "print(sum(d.metadata['Name'].startswith('nvidia') for d in m.distributions()))"],
                          capture_output=True, text=True, timeout=120)
    version, nvidia = done.stdout.split()
    if built[1] == "cpu":
        assert version.endswith("+cpu") and nvidia == "0", (version, nvidia)
    if shutil.which("nvidia-smi") is None:
        assert built[1] == "cpu"


@pytest.mark.slow
def test_make_lab_opens_the_learner_lab_on_the_start_page(kit_env, tmp_path):
    kit, _ = kit_env
    from autograder.lab_server import free_port

    port, token = free_port(), "kit-test-token"
    lab_args = f"--no-browser --ip=127.0.0.1 --port={port} --ServerApp.port_retries=0 --IdentityProvider.token={token}"
    command = readme_commands(kit)[1].split() + [f"LAB_ARGS={lab_args}"]
    log = open(tmp_path / "lab.log", "w")
    lab = subprocess.Popen(command, cwd=kit, env=kit_run_env(kit, tmp_path), stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)

    def get(path):
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.url, response.read()

    try:
        deadline = time.monotonic() + 120
        while True:
            assert lab.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
            try:
                get("/api/status")
                break
            except OSError:
                assert time.monotonic() < deadline, "the kit's lab did not start"
                time.sleep(0.5)
        assert json.loads(get("/api/contents/notebooks/00_start_here.ipynb?content=0")[1])["type"] == "notebook"
        assert {item["name"] for item in json.loads(get("/api/contents/release")[1])["content"]} == set(ASSIGNMENTS)
        landing, page = get("/")
        assert landing.endswith("/lab/tree/notebooks/00_start_here.ipynb"), landing
        config = json.loads(re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page.decode(), re.S)[1])
        assert "@jupyter/nbgrader:formgrader" in config["disabledExtensions"]  # lab/learner's page config
        # nothing names an exchange here: no Assignments tab, no Nbgrader menu (unless nbgrader's default root exists)
        hidden = not os.path.isdir("/usr/local/share/nbgrader/exchange")
        assert ("@jupyter/nbgrader:assignment-list" in config["disabledExtensions"]) == hidden
        with pytest.raises(urllib.error.HTTPError, match="404"):
            get("/formgrader")  # nbgrader's instructor server extension is off
    finally:
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/api/shutdown", method="POST",
                                                          headers={"Authorization": f"token {token}"}), timeout=10)
            lab.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait()
        log.close()
