"""The learner's lab, a Jupyter server extension (lab/learner/jupyter_server_config.json loads it in
place of nbgrader's validate_assignment extension).

- Validate answers in the course's words (:mod:`fplab.validate`).
- nbgrader's Assignments tab (and its Nbgrader menu) shows only where the class has an exchange:
  a root that nbgrader's configuration names (a class on one server, a hub, the course's own lab),
  or nbgrader's default root where it exists. Without one the tab could only say, four times,
  that it found none; a class that collects by upload or LMS hands in the notebook file instead
  (the kit's README and start page say which).
"""
import contextlib
import os

from jupyter_server.utils import url_path_join
from nbgrader.exchange import ExchangeFactory
from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
from nbgrader.server_extensions.validate_assignment.handlers import NbGraderVersionHandler

from fplab.validate import ValidateHandler

ASSIGNMENTS_TAB = ("@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu")


def _jupyter_server_extension_points():
    return [{"module": "fplab.lab"}]


def _load_jupyter_server_extension(serverapp):
    web_app = serverapp.web_app
    web_app.settings["root_dir"] = serverapp.root_dir  # where ValidateHandler finds notebooks
    handlers = {"assignments/validate": ValidateHandler, "nbgrader_version": NbGraderVersionHandler}
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings["base_url"], pattern), handler)
                                 for pattern, handler in handlers.items()])


async def _start_jupyter_server_extension(serverapp):
    """Once every extension has loaded: add the Assignments tab's rule to the page config, after any
    hook another extension set (JupyterHub's)."""
    settings = serverapp.web_app.settings
    previous = settings.get("page_config_hook")

    def hook(handler, page_config):
        if previous:
            page_config = previous(handler, page_config)
        return assignments_tab(page_config, exchange_configured(serverapp.root_dir))

    settings["page_config_hook"] = hook


def exchange_configured(root_dir) -> bool:
    """Whether nbgrader's configuration, read as its Assignments tab reads it, names an exchange
    root, or nbgrader's default root exists."""
    with contextlib.chdir(root_dir):
        config = AssignmentList().load_config()
    lister = ExchangeFactory(config=config).List(config=config)
    return lister.root != type(lister).root.default_value or os.path.isdir(lister.root)


def assignments_tab(page_config: dict, shown: bool) -> dict:
    """``page_config`` with nbgrader's Assignments tab and menu disabled unless ``shown`` (a copy:
    the server keeps the page config it is given from one page to the next)."""
    if shown:
        return page_config
    disabled = page_config.get("disabledExtensions", [])  # a list here; a mapping in page_config.json
    if isinstance(disabled, dict):
        return {**page_config, "disabledExtensions": {**disabled, **dict.fromkeys(ASSIGNMENTS_TAB, True)}}
    return {**page_config, "disabledExtensions": [*disabled, *ASSIGNMENTS_TAB]}
