"""Generate release/ from source/ through nbgrader, deterministically and atomically."""
import shutil
import tempfile
from pathlib import Path

import nbformat

from autograder.course import nbgrader


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
    """Rewrite a notebook with no outputs or execution counts, in nbformat's canonical layout."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, path)


def release(course, ids):
    """Regenerate ``release/ID`` for each id; returns the ids whose release changed.

    Everything is generated in a temporary folder first; release/ is touched only after all ids
    succeeded, one folder swap per id, so a failure leaves release/ as it was.
    """
    changed = []
    with tempfile.TemporaryDirectory(prefix="finite-release-") as workdir:
        generated = generate(course, ids, workdir) / "release"
        course.release.mkdir(exist_ok=True)
        for assignment_id in ids:
            new, old = generated / assignment_id, course.release / assignment_id
            if old.exists() and same_tree(new, old):
                continue
            staged = course.release / f".{assignment_id}.new"
            shutil.rmtree(staged, ignore_errors=True)
            shutil.copytree(new, staged)
            if old.exists():
                retired = course.release / f".{assignment_id}.old"
                shutil.rmtree(retired, ignore_errors=True)
                old.rename(retired)
                staged.rename(old)
                shutil.rmtree(retired)
            else:
                staged.rename(old)
            changed.append(assignment_id)
    return changed


def same_tree(a, b):
    """True when two folders hold the same files with the same bytes."""
    files_a = sorted(p.relative_to(a) for p in Path(a).rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in Path(b).rglob("*") if p.is_file())
    return files_a == files_b and all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)
