"""pyproject.toml and environment.yml pin the same versions."""
import tomllib

from conftest import ROOT

from fplab.pins import pinned_versions, pins


def test_pyproject_and_environment_yml_pin_the_same_versions():
    from_pyproject = pinned_versions(ROOT / "pyproject.toml", extras=True)
    from_conda = pins((ROOT / "environment.yml").read_text().splitlines())
    assert from_pyproject, "no pinned dependencies found in pyproject.toml"
    assert from_conda == from_pyproject


def test_every_dependency_is_pinned_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [d for deps in project["optional-dependencies"].values() for d in deps]
    assert [d for d in declared if "==" not in d] == []
