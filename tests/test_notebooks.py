"""Every ungraded notebook in notebooks/ executes top to bottom."""
import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
