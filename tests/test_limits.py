"""The sandbox's limits are configured in one place: c.SandboxLimits in the course's
nbgrader_config.py, read by nbgrader's preprocessors, `grade` and `check`; grade's flags win."""
import re
from dataclasses import fields, replace
from pathlib import Path
from types import SimpleNamespace

from traitlets.config import Config

import pytest

from autograder.cli import limits_from, parser
from autograder.course import CourseConfig, CourseError
from autograder.grading.pipeline import SandboxedExecute
from autograder.sandbox.limits import Limits, SandboxLimits


def course_with(tmp_path, lines):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + "".join(f"{line}\n" for line in lines))
    return SimpleNamespace(root=tmp_path, config=CourseConfig.load(tmp_path))


def test_every_limit_is_a_trait_of_its_type_whose_configured_value_reaches_limits():
    """Unconfigured, SandboxLimits gives the dataclass's defaults; each field configured alone reaches
    Limits as given (a fraction for a float), the others keeping their defaults."""
    assert SandboxLimits().limits() == Limits()
    for spec in fields(Limits):
        value = spec.default * 2 + (1 if spec.type is int else 0.5)
        configured = SandboxLimits(config=Config({"SandboxLimits": {spec.name: value}})).limits()
        assert configured == replace(Limits(), **{spec.name: value}), spec.name


def test_the_course_config_sets_the_limits_every_path_reads(tmp_path):
    course = course_with(tmp_path, ["c.SandboxLimits.memory_mb = 8192", "c.SandboxLimits.cell_timeout = 7"])
    limits = course.config.limits
    assert (limits.memory_mb, limits.cell_timeout, limits.disk_mb) == (8192, 7, Limits().disk_mb)
    config = Config({"SandboxLimits": {"memory_mb": 8192, "output_mb": 0.5}})  # as nbgrader hands it over
    assert SandboxLimits(parent=SandboxedExecute(config=config)).limits() == \
        Limits(memory_mb=8192, output_mb=0.5)


def test_grade_s_flags_override_the_course_config(tmp_path):
    course = course_with(tmp_path, ["c.SandboxLimits.memory_mb = 8192", "c.SandboxLimits.cpus = 2.0"])
    args = parser().parse_args(["grade", "x", "--assignment", "a", "--out", "o", "--memory-mb", "1000"])
    limits = limits_from(args, course)
    assert (limits.memory_mb, limits.cpus) == (1000, 2.0)


def test_a_limit_out_of_its_range_is_refused_on_every_path(tmp_path):
    """One check, in Limits: the course config (nbgrader autograde's path too) and grade's flags."""
    with pytest.raises(CourseError, match=r"--cpus 0\.0: give a number between 0\.01 and 1024"):
        course_with(tmp_path / "a", ["c.SandboxLimits.cpus = 0.0"])
    with pytest.raises(ValueError, match="--cpus"):
        SandboxLimits(parent=SandboxedExecute(config=Config({"SandboxLimits": {"cpus": 0.0}}))).limits()
    course = course_with(tmp_path / "b", [])
    args = parser().parse_args(["grade", "x", "--assignment", "a", "--out", "o", "--max-procs", "0"])
    with pytest.raises(CourseError, match="--max-procs 0: give a number of at least 1"):
        limits_from(args, course)


def test_validate_gives_a_cell_as_long_as_grading_does():
    """nbgrader validate (the learner's Validate, the instructor's) interrupts a cell when grading would."""
    root = Path(__file__).resolve().parents[1]
    for config in (root / "nbgrader_config.py", root / "lab" / "learner" / "nbgrader_config.py"):
        stated = re.search(r"^c\.Execute\.timeout = (\d+)$", config.read_text(), re.M)
        assert stated and int(stated[1]) == Limits().cell_timeout, config
