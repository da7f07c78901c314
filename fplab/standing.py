"""Where a learner stands: every assignment, begun or not, with what each exercise's visible checks
found, read from the learner's own saved notebooks. Nothing is run.

``python -m fplab.standing [FOLDER]`` prints the page; FOLDER holds the assignments as
``NN_topic/NN_topic.ipynb`` (``release``, as the kit lays them out, by default). The start page
shows the same page. Validate (:mod:`fplab.validate`) reads the same states from the notebook it
has just run.
"""
import argparse
from pathlib import Path

import nbformat
from nbgrader.utils import compute_checksum, is_solution

from fplab.assignments import MINUTES, time_text
from fplab.progress import FAILED, NOT_ATTEMPTED, NOT_RUN, PASSED, Exercise, first_line, passing, table


def cell_state(cell) -> tuple:
    """(state, why) of a test cell from its outputs, as Validate and grading judge it: an error or
    any text on stderr fails it; the stub's ``NotImplementedError`` and a ``NameError`` (an answer
    not written yet) count as not attempted."""
    outputs = cell.get("outputs", [])
    if cell.get("execution_count") is None and not outputs:
        return NOT_ATTEMPTED, NOT_RUN
    for output in outputs:
        if output["output_type"] == "error":
            why = first_line(output["ename"], output["evalue"])
            if output["ename"] == "NotImplementedError":
                return NOT_ATTEMPTED, ""
            return (NOT_ATTEMPTED if output["ename"] == "NameError" else FAILED), why
    for output in outputs:
        if output["output_type"] == "stream" and output["name"] == "stderr":
            return FAILED, first_line("it wrote to stderr", output["text"])
    return PASSED, ""


def exercises(nb) -> list:
    """Every graded test cell of a notebook (nbgrader ``grade_id`` ``test_<exercise>``), in order."""
    found = []
    for cell in nb.cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and grading.get("grade"):
            found.append(Exercise(grading["grade_id"].removeprefix("test_"), float(grading.get("points", 0)),
                                  *cell_state(cell)))
    return found


def begun(nb) -> bool:
    """Whether the learner has run a cell of the notebook or changed one of its answer cells
    (nbgrader's checksum of each answer cell, recorded at release, tells)."""
    return any(cell.get("execution_count") is not None or cell.get("outputs")
               or (is_solution(cell) and cell.metadata.nbgrader.get("checksum") not in (None, compute_checksum(cell)))
               for cell in nb.cells)


def assignment(folder: Path, assignment_id: str) -> str:
    """One assignment's lines of the page."""
    path = folder / assignment_id / f"{assignment_id}.ipynb"
    head = f"{assignment_id:<26}"
    time = f"{'about ' + time_text(MINUTES[assignment_id]):<13}"
    if not path.is_file():
        return f"{head}{'not here':<11}{time}  (no {path})"
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError) as error:
        return f"{head}{'unreadable':<11}{time}  ({first_line(type(error).__name__, str(error))})"
    if not begun(nb):
        return f"{head}{'not begun':<11}{time}".rstrip()
    rows = exercises(nb)
    body = "\n".join("    " + line for line in table(rows).splitlines())
    return f"{head}{'started':<11}{time}  ({passing(rows)})\n{body}"


def standing(folder="release") -> str:
    """The page: every assignment of the course, in order, from the notebooks saved in ``folder``."""
    folder = Path(folder)
    return "\n".join([
        f"Where you stand, from your notebooks saved in {folder}/ (read, not run: run an exercise's test",
        "cell and save the notebook to update its line). Visible checks are not a score: when your",
        "work is graded, hidden tests check more cases.",
        "",
        *(assignment(folder, assignment_id) for assignment_id in MINUTES),
    ])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m fplab.standing", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="release",
                        help="where the assignments lie, as NN_topic/NN_topic.ipynb (default: release)")
    print(standing(parser.parse_args(argv).folder))


if __name__ == "__main__":
    main()
