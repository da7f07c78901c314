"""pyproject.toml and environment.yml pin the same versions."""
import re
import tomllib

from conftest import ROOT


def pins(lines):
    """{normalised name: version} for every 'name==version' in ``lines``."""
    found = {}
    for line in lines:
        match = re.match(r"^\s*-?\s*\"?([A-Za-z0-9_.\-]+)==([^\s\",]+)", line)
        if match:
            found[match[1].lower().replace("_", "-")] = match[2]
    return found


def test_pyproject_and_environment_yml_pin_the_same_versions():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [d for deps in project["optional-dependencies"].values() for d in deps]
    from_pyproject = pins(declared)
    from_conda = pins((ROOT / "environment.yml").read_text().splitlines())
    assert from_pyproject, "no pinned dependencies found in pyproject.toml"
    assert from_conda == from_pyproject


def test_every_dependency_is_pinned_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [d for deps in project["optional-dependencies"].values() for d in deps]
    assert [d for d in declared if "==" not in d] == []
