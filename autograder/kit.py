"""The learner kit: what students get, and a scan proving it holds no solution or hidden test.

``build_kit(course, out)`` writes the release notebooks, ``notebooks/``, ``fplab``, the learner's
lab configuration, a learner README and Makefile, and the pinned environment for ``fplab`` alone
(``pyproject.toml`` and ``environment.yml``, generated from the course's own pins). It builds in a
folder beside ``out``, scans it with :func:`problems`, and moves it into place only when clean.
"""
import gzip
import io
import json
import os
import shutil
import string
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from autograder.course import Course, CourseError, hidden_regions, read_notebook
from autograder.source_text import MARKER, checked_lines, json_strings, quoted
from fplab.pins import pinned_versions

TEMPLATES = Path(__file__).resolve().parent / "templates" / "kit"

# The course's pinned packages a learner needs: fplab's imports, JupyterLab and its kernel, and
# nbgrader (the Assignments tab and Validate) with the nbconvert/nbclient it runs on, and JupyterHub's
# single-user server (a class on a hub). Grading-only packages (dask, tqdm) and the test tools stay out.
LEARNER_PACKAGES = ("torch", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "notebook", "nbgrader",
                    "nbclient", "nbconvert", "nbformat", "ipykernel", "jupyterhub", "jsonschema")

# Never in a kit, at any depth: the instructor's side of the course; nor the course's own nbgrader
# configuration at the top (the learner's, lab/learner/nbgrader_config.py, is the kit's).
FORBIDDEN_NAMES = frozenset({"source", "cases", "autograder", "tests", ".finite", "gradebook.db",
                             "AUTHORING.md", "submitted", "autograded", ".exchange"})
FORBIDDEN_PATHS = frozenset({"nbgrader_config.py"})
# Not copied from the course's folders: caches and what JupyterLab writes at run time.
JUNK = ("__pycache__", "*.pyc", ".ipynb_checkpoints", ".*")
KEPT = (".git",)  # what the kit's folder may already hold: the repository the kit is published from
LAB_JUNK = ("lab", "migrated")  # lab/learner/lab/: the settings JupyterLab writes


@dataclass(frozen=True)
class Kit:
    """What :func:`build_kit` wrote."""
    path: Path
    assignments: int
    files: int
    lines_checked: int


def build_kit(course: Course, out) -> Kit:
    """Write the learner kit to ``out`` (absent, empty, or holding only a git repository to publish it
    from, which is kept); raise CourseError and change nothing when ``out`` holds anything else, a
    release is missing, or the kit would leak."""
    out = Path(out).absolute()
    if out.exists() and (not out.is_dir() or any(p.name not in KEPT for p in out.iterdir())):
        raise CourseError(f"{out} exists and holds more than a .git folder: give a new, empty or git-only folder "
                          "for the kit")
    ids = course.assignment_ids()
    missing = [i for i in ids if not course.release_path(i).is_file()]
    if missing:
        raise CourseError(f"no release notebook for {', '.join(missing)}: run `python -m autograder release` first")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        write_kit(course, ids, staging)
        secrets = secret_lines(course)
        found = problems(staging, secrets)
        if found:
            raise CourseError(f"kit not written, it would leak: {found[0]}"
                              + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""))
        if out.exists():
            staging.chmod(out.stat().st_mode)
            kept = [name for name in KEPT if (out / name).exists()]
            for name in kept:
                (out / name).rename(staging / name)
            try:
                out.rmdir()
                staging.rename(out)
            except OSError:
                for name in kept:
                    (staging / name).rename(out / name)
                raise
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Kit(out, len(ids), sum(1 for p in out.rglob("*") if p.is_file()), len(secrets))


def write_kit(course: Course, ids, folder: Path) -> None:
    """The kit's files, from the course's allowed folders and the templates."""
    for assignment_id in ids:
        shutil.copytree(course.release / assignment_id, folder / "release" / assignment_id,
                        ignore=shutil.ignore_patterns(*JUNK))
    for name in ("notebooks", "fplab"):
        shutil.copytree(course.root / name, folder / name, ignore=shutil.ignore_patterns(*JUNK))
    shutil.copytree(course.root / "lab" / "learner", folder / "lab" / "learner",
                    ignore=shutil.ignore_patterns(*JUNK, *LAB_JUNK))
    pins = learner_pins(course)
    readme = string.Template((TEMPLATES / "README.md").read_text())
    (folder / "README.md").write_text(readme.safe_substitute(TORCH=pins["torch"], COUNT=len(ids)))
    shutil.copy2(TEMPLATES / "Makefile", folder / "Makefile")
    shutil.copy2(TEMPLATES / "gitignore", folder / ".gitignore")
    (folder / "pyproject.toml").write_text(kit_pyproject(course, pins))
    (folder / "environment.yml").write_text(kit_environment(course, pins))


def course_project(course: Course) -> dict:
    with (course.root / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["project"]


def learner_pins(course: Course) -> dict:
    """{package: version} for LEARNER_PACKAGES, read from the course's pyproject.toml."""
    pinned = pinned_versions(course.root / "pyproject.toml")
    unpinned = [p for p in LEARNER_PACKAGES if not pinned.get(p)]
    if unpinned:
        raise CourseError(f"pyproject.toml pins no exact version of {', '.join(unpinned)}: the kit needs one")
    return {p: pinned[p] for p in LEARNER_PACKAGES}


def kit_pyproject(course: Course, pins: dict) -> str:
    project = course_project(course)
    dependencies = "".join(f'    "{name}=={version}",\n' for name, version in pins.items())
    return f"""\
# The learner's environment: fplab and the course's pinned packages (generated by
# `python -m autograder kit` from the course's pyproject.toml; edit that one, not this one).
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "finite-fplab"
version = "{project["version"]}"
description = "Finite: the learner's side of the course (fplab) with its pinned environment"
requires-python = "{project["requires-python"]}"
# Exact pins: every number the notebooks print was measured on these versions.
dependencies = [
{dependencies}]

[tool.setuptools]
package-dir = {{"" = "."}}  # the folder itself on sys.path: an editable install with no setuptools warning

[tool.setuptools.packages.find]
include = ["fplab", "fplab.*"]  # fplab and its subpackages (rules, explorers)
"""


def kit_environment(course: Course, pins: dict) -> str:
    python = course_project(course)["requires-python"].lstrip(">=~ ")
    lines = "".join(f"      - {name}=={version}\n" for name, version in pins.items())
    return f"""\
# Conda users: `conda env create -f environment.yml && conda activate finite`, then
# `pip install --no-deps -e .` in this folder. Same pins as pyproject.toml.
name: finite
channels:
  - conda-forge
dependencies:
  - python={python}
  - pip
  - pip:
{lines}"""


# --- the scan ---------------------------------------------------------------------------------

def source_texts(course: Course) -> dict:
    """{assignment id: the source notebook's cells, one after another}; the header under ``header``."""
    texts = {i: "\n".join(cell.source for cell in course.source_notebook(i).cells) for i in course.assignment_ids()}
    header = course.header_path
    if header.is_file():
        texts["header"] = "\n".join(cell.source for cell in read_notebook(header).cells)
    return texts


def secret_lines(course: Course) -> dict:
    """{line: assignment id} for every line of a solution or hidden-test region that weighs at
    least MIN_TOKENS and is shown nowhere else in the source notebooks, whitespace stripped."""
    texts = source_texts(course)
    regions = {i: hidden_regions(text) for i, text in texts.items()}
    public = "\n".join(texts.values())
    for found in regions.values():
        for region in found:
            public = public.replace(region, "\n")
    secrets = {}
    for assignment_id, found in regions.items():
        for line in checked_lines(found, public):
            secrets.setdefault(line, assignment_id)
    return secrets


def problems(folder, secrets: dict) -> list:
    """One line per problem in the kit at ``folder``: a forbidden path, a link, a solution or
    hidden-test marker, or a file (or archive member) holding lines of ``secrets``
    (:func:`secret_lines`)."""
    folder = Path(folder)
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if FORBIDDEN_NAMES & set(path.relative_to(folder).parts) or relative in FORBIDDEN_PATHS:
            found.append(f"{relative}: a path the kit must never hold")
        if path.is_file() and not path.is_symlink():
            found += [leak for name, text in texts(relative, path.read_bytes()) for leak in leaks(name, text, secrets)]
        elif path.is_symlink():
            found.append(f"{relative}: a symbolic link")
    return found


def leaks(name: str, text: str, secrets: dict) -> list:
    if MARKER.search(text):
        return [f"{name}: holds a solution or hidden-test marker"]
    hits = quoted(text, secrets)
    if not hits:
        return []
    origins = sorted({secrets[line] for line in hits})
    return [f"{name}: {len(hits)} lines of {', '.join(origins)}'s solutions or hidden tests, e.g. {hits[0]!r}"]


def texts(name: str, data: bytes, depth: int = 0):
    """(name, text) for a file's bytes, for the strings of a JSON file (a notebook) decoded, and for
    every member of an archive in it (zip and wheel, tar, gzip), recursively."""
    text = data.decode("utf-8", errors="replace")
    yield name, text
    if text.lstrip()[:1] in ("{", "["):
        try:
            yield name, "\n".join(json_strings(json.loads(text)))
        except ValueError:
            pass
    if depth >= 4:
        return
    for member, content in archive_members(data):
        yield from texts(f"{name}!{member}", content, depth + 1)


def archive_members(data: bytes):
    """(member name, bytes) of a zip, tar (any compression) or gzip file; nothing for other files."""
    stream = io.BytesIO(data)
    if zipfile.is_zipfile(stream):
        with zipfile.ZipFile(stream) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield info.filename, archive.read(info)
        return
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            members = [(m.name, archive.extractfile(m).read()) for m in archive.getmembers() if m.isfile()]
        yield from members
        return
    except (tarfile.TarError, EOFError, OSError):
        pass
    if data[:2] == b"\x1f\x8b":
        try:
            yield "(gunzipped)", gzip.decompress(data)
        except (OSError, EOFError):
            pass
