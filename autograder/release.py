"""Generate release/ from source/ through nbgrader, deterministically and atomically."""
import filecmp
import shutil
import tempfile
from pathlib import Path

import nbformat

from autograder.course import nbgrader
from fplab.rules import digest


def generate(course, ids, workdir):
    """Run nbgrader generate_assignment for ``ids`` in a fresh copy of the course under ``workdir``.

    Returns the copy's root; its ``release/`` and ``gradebook.db`` are nbgrader's own output.
    """
    copy = course.copy_to(Path(workdir) / "course", ids)
    for assignment_id in ids:
        nbgrader(["generate_assignment", assignment_id, "--force"], cwd=copy)
        for path in (copy / "release" / assignment_id).rglob("*.ipynb"):
            normalise(path)
    return copy


def normalise(path):
    """Rewrite a notebook with no outputs or execution counts, in nbformat's canonical layout, listing
    its code cells' fingerprints (``metadata.finite.released_code``: what the learner's visible rule
    check, :mod:`fplab.rule_check`, takes for the release's own cells)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["finite"] = {"released_code": sorted({digest(c.source) for c in nb.cells if c.cell_type == "code"})}
    nbformat.write(nb, path)


def release(course, ids):
    """Regenerate ``release/ID`` for each id; returns the ids whose release changed.

    Everything is generated in a temporary folder and copied beside release/ first; release/ is
    touched only after all of that succeeded, by one rename swap per id, so a failure before the
    swaps leaves release/ as it was.
    """
    with tempfile.TemporaryDirectory(prefix="finite-release-") as workdir:
        generated = generate(course, ids, workdir) / "release"
        course.release.mkdir(exist_ok=True)
        changed = [i for i in ids if not ((course.release / i).exists() and same_tree(generated / i, course.release / i))]
        staged = {i: course.release / f".{i}.new" for i in changed}
        try:  # copy every changed assignment beside release/ first: a failure here changes nothing
            for assignment_id, folder in staged.items():
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(generated / assignment_id, folder)
        except BaseException:
            for folder in staged.values():
                shutil.rmtree(folder, ignore_errors=True)
            raise
        for assignment_id, folder in staged.items():  # then one rename swap per assignment
            old, retired = course.release / assignment_id, course.release / f".{assignment_id}.old"
            if old.exists():
                shutil.rmtree(retired, ignore_errors=True)
                old.rename(retired)
            folder.rename(old)
            shutil.rmtree(retired, ignore_errors=True)
    return changed


def same_tree(a, b) -> bool:
    """True when two folders hold the same files with the same bytes."""
    comparison = filecmp.dircmp(a, b)
    if comparison.left_only or comparison.right_only or comparison.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, comparison.common_files, shallow=False)
    return not mismatch and not errors and all(same_tree(Path(a) / d, Path(b) / d) for d in comparison.common_dirs)
