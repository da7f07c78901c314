"""The notebook the Formgrader shows a grader holds nothing a browser would run.

The Formgrader renders an autograded notebook into its own page, as the grader: nbconvert passes
HTML and JavaScript outputs, output metadata (an image's width), raw cells and the HTML, links and
maths of markdown cells through as they are, so a submission could act in that page with the
grader's rights (set its own score). Here every output keeps only what renders as text or as a
checked image, and a markdown or raw cell whose text the release does not hold is shown as plain
text. The course's own cells, the record and the flags are untouched.
"""
import base64
import binascii
import re

import nbformat

from autograder.sandbox.outputs import OBSERVATION_MIME

IMAGES = ("image/png", "image/jpeg")
KEPT = ("text/plain", *IMAGES, OBSERVATION_MIME)  # text/plain is escaped; observations are not rendered
WRITTEN = "*Written in the submission; shown as text, not rendered:*"
NOT_SHOWN = "[output not shown in the Formgrader: {}]"


def _is_image(data) -> bool:
    if not isinstance(data, str):
        return False
    try:
        base64.b64decode(re.sub(r"\s", "", data), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _rich(output):
    """A display or result output with only :data:`KEPT` data (images only when they decode) and
    no metadata; a note after its text names what was left out."""
    data = output.get("data") or {}
    kept = {k: v for k, v in data.items() if k in KEPT and (k not in IMAGES or _is_image(v))}
    dropped = sorted(set(data) - set(kept))
    if dropped:
        text = kept.get("text/plain", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        kept["text/plain"] = (text + "\n" if text else "") + NOT_SHOWN.format(", ".join(dropped))
    output["data"], output["metadata"] = kept, {}
    return output


def _plain(source: str) -> str:
    """``source`` as a fenced block longer than any run of backticks it holds: text, not markdown."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", source)), default=0))
    return f"{WRITTEN}\n\n{fence}text\n{source}\n{fence}"


def _output(output):
    kind = output.get("output_type")
    if kind in ("display_data", "execute_result"):
        output = _rich(output)
    if kind == "stream" and output.get("name") not in ("stdout", "stderr"):
        output["name"] = "stdout"
    if "execution_count" in output and not isinstance(output["execution_count"], int):
        output["execution_count"] = None
    return output


def inert(nb, released_text: frozenset):
    """``nb`` with outputs reduced to text and checked images, cell metadata to nbgrader's, and
    every markdown or raw cell whose source is not one of ``released_text`` (the release's own
    markdown) turned into plain text."""
    for index, cell in enumerate(nb.cells):
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == "nbgrader"}
        if cell.cell_type == "code":
            cell.outputs = [_output(o) for o in cell.outputs]
            if not isinstance(cell.get("execution_count"), int):
                cell.execution_count = None
        elif cell.cell_type != "markdown" or cell.source not in released_text or cell.get("attachments"):
            plain = nbformat.v4.new_markdown_cell(_plain(cell.source), metadata=cell.metadata)
            plain.id = cell.get("id", plain.id)
            nb.cells[index] = plain
    return nb
