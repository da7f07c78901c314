"""Every solved notebook survives Run All followed by later cells re-run out of order, as a
learner does: no cell cleans up halfway, working folders and helper processes last as long as the
kernel (fplab.progress.workdir, atexit)."""
import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ASSIGNMENTS, ROOT
from autograder.course import Course
from autograder.grading.reference import solved_notebook

pytestmark = pytest.mark.slow  # starts kernels


def errors(cell):
    return [f"{o.ename}: {o.evalue}" for o in cell.get("outputs", []) if o.output_type == "error"]


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_run_all_then_later_cells_again_in_reverse_order(assignment_id, tmp_path):
    nb = solved_notebook(Course(ROOT), assignment_id)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    with client.setup_kernel():
        for index in code:
            client.execute_cell(nb.cells[index], index)
        first = {i: errors(nb.cells[i]) for i in code}
        tagged = {i for i in code if "raises-exception" in nb.cells[i].metadata.get("tags", [])}
        assert not {i: e for i, e in first.items() if e and i not in tagged}, "Run All of the solutions raised"
        later = [i for i in code[len(code) // 2:] if i not in tagged][-8:]
        for index in reversed(later):
            client.execute_cell(nb.cells[index], index)
            assert errors(nb.cells[index]) == [], (index, nb.cells[index].source[:200], errors(nb.cells[index]))
