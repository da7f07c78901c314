"""The course's pins, read one way: ``name==version`` lines of its ``pyproject.toml`` (and of
``environment.yml``). No heavy imports: the grader's kit command reads them too."""
import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
PIN = re.compile(r"^\s*-?\s*\"?([A-Za-z0-9_.\-]+)==([^\s\",]+)")


def pins(lines) -> dict:
    """{normalised package name: version} for every ``name==version`` among ``lines`` (a pyproject's
    dependencies, or environment.yml's lines): the one reading of the course's pins."""
    found = {}
    for line in lines:
        match = PIN.match(line)
        if match:
            found[match[1].lower().replace("_", "-")] = match[2]
    return found


def pinned_versions(pyproject: Path = PYPROJECT, extras: bool = False) -> dict:
    """:func:`pins` of the course's ``pyproject.toml`` dependencies (and its optional ones, with
    ``extras``); empty when there is no such file."""
    if not pyproject.is_file():
        return {}
    with pyproject.open("rb") as file:
        project = tomllib.load(file)["project"]
    optional = [d for deps in project.get("optional-dependencies", {}).values() for d in deps] if extras else []
    return pins(project["dependencies"] + optional)
