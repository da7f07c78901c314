"""fplab.lab, the learner's lab server extension: where nbgrader's Assignments tab shows (the browser
tests open the lab itself)."""
import json
import os

import pytest

from conftest import ROOT
from fplab.lab import ASSIGNMENTS_TAB, assignments_tab, exchange_configured

DEFAULT_ROOT = "/usr/local/share/nbgrader/exchange"  # nbgrader 0.9.6's Exchange.root


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    """An empty user config folder: only the folder a test writes names an exchange."""
    folder = tmp_path / "jupyter"
    folder.mkdir()
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(folder))
    monkeypatch.delenv("JUPYTER_CONFIG_PATH", raising=False)
    return folder


def test_the_learner_lab_loads_fplab_lab_in_place_of_nbgrader_validate():
    server = json.loads((ROOT / "lab" / "learner" / "jupyter_server_config.json").read_text())["ServerApp"]
    assert server["jpserver_extensions"]["fplab.lab"] is True
    assert server["jpserver_extensions"]["nbgrader.server_extensions.validate_assignment"] is False
    assert server["contents_manager_class"] == "fplab.contents.ContentsManager"


def test_an_exchange_named_in_the_course_or_the_config_path_shows_the_tab(tmp_path, config_dir):
    course = tmp_path / "course"
    course.mkdir()
    assert exchange_configured(course) == os.path.isdir(DEFAULT_ROOT)  # the kit: nothing names one
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.Exchange.root = '/nowhere/yet'\n")
    assert exchange_configured(course)  # named, even before it exists: nbgrader's own errors then tell
    (course / "nbgrader_config.py").unlink()
    (config_dir / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(tmp_path)!r}\n")
    assert exchange_configured(course)  # a class on one server, a hub: the environment's config


def test_without_an_exchange_the_tab_and_its_menu_are_disabled_and_the_page_config_kept():
    listed = {"disabledExtensions": ["@jupyter/nbgrader:formgrader"], "appName": "JupyterLab"}
    hidden = assignments_tab(listed, shown=False)
    assert hidden["disabledExtensions"] == ["@jupyter/nbgrader:formgrader", *ASSIGNMENTS_TAB]
    assert hidden["appName"] == "JupyterLab" and listed["disabledExtensions"] == ["@jupyter/nbgrader:formgrader"]
    mapped = assignments_tab({"disabledExtensions": {"x": True}}, shown=False)["disabledExtensions"]
    assert mapped == {"x": True, **dict.fromkeys(ASSIGNMENTS_TAB, True)}
    assert assignments_tab(listed, shown=True) is listed
