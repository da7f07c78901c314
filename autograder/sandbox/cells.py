"""Which cell is which, read from its nbgrader metadata (the sandbox's and the grader's one reading)."""


def is_test_cell(cell) -> bool:
    """A graded test cell: code, nbgrader ``grade: true``, not an answer (``solution``)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_answer_cell(cell) -> bool:
    """An answer cell: code, nbgrader ``solution: true``."""
    return cell.get("cell_type") == "code" and bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def cell_label(nb, index) -> str:
    """``grade_id (cell N)``, or ``cell N`` for a cell with no grade id."""
    grade_id = nb.cells[index].get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"{grade_id} (cell {index + 1})" if grade_id else f"cell {index + 1}"

