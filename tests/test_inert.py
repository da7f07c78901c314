"""The notebook the Formgrader shows holds nothing a browser would run: every way a submission can
put active content into nbgrader's formgrade page (outputs, output metadata, cell metadata, markdown,
raw cells, attachments, a fence it closes itself) renders, after ``inert``, as text inside <pre>."""
import base64
from html.parser import HTMLParser

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers
from traitlets.config import Config

from autograder.grading.inert import NOT_SHOWN, inert

MARK = "FXSS"  # in every payload: the page may hold it only as text inside <pre>
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
RELEASED = "Read **this** first: the release's own text."


def display(data, metadata=None, kind="display_data"):
    extra = {"execution_count": 1} if kind == "execute_result" else {}
    return nbformat.v4.new_output(kind, data=data, metadata=metadata or {}, **extra)


def hostile_notebook():
    code = nbformat.v4.new_code_cell("print('hi')", metadata={"tags": [f'x" onmouseover="{MARK}()']})
    code.outputs = [
        display({"text/html": f"<script>{MARK}()</script><img src=x onerror={MARK}()>"}),
        display({"application/javascript": f"{MARK}()", "text/plain": "js"}),
        display({"image/svg+xml": f"<svg onload='{MARK}()'></svg>"}),
        display({"image/png": f'x" onerror="{MARK}()'}),
        display({"image/png": PNG}, {"image/png": {"width": f"1 onerror={MARK}()"}}),
        display({"text/markdown": f"[a](javascript:{MARK}())"}, kind="execute_result"),
        display({"text/latex": rf"$\href{{javascript:{MARK}()}}{{x}}$"}),
        nbformat.v4.new_output("stream", name=f'stdout" onmouseover="{MARK}()', text=f"<b>{MARK}</b>"),
        nbformat.v4.new_output("error", ename=f"<script>{MARK}</script>", evalue=MARK, traceback=[f"<i>{MARK}</i>"]),
    ]
    markdown = nbformat.v4.new_markdown_cell(
        f"<script>{MARK}()</script> [a](javascript:{MARK}()) $\\href{{javascript:{MARK}()}}{{x}}$ ![i](attachment:a.png)")
    markdown.attachments = {"a.png": {"image/png": f'x" onerror="{MARK}()'}}
    fence_breaker = nbformat.v4.new_markdown_cell(f"````\n</code></pre><script>{MARK}()</script>\n````")
    raw = nbformat.v4.new_raw_cell(f"<script>{MARK}()</script>", metadata={"raw_mimetype": "text/html"})
    released = nbformat.v4.new_markdown_cell(RELEASED)
    return nbformat.v4.new_notebook(cells=[released, code, markdown, fence_breaker, raw])


def formgrade_page(nb) -> str:
    """``nb`` as the Formgrader's submission page renders it (nbgrader's exporter and template)."""
    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"assignment_id": "a", "notebook_id": "a", "submission_id": "s", "index": 0, "total": 1,
                 "base_url": "/", "student": "st", "last_name": "", "first_name": "", "notebook_path": "a.ipynb"}
    return HTMLExporter(config=config).from_notebook_node(nb, resources=resources)[0]


class ActiveContent(HTMLParser):
    """Where MARK appears other than as text inside <pre> (an attribute, a script, rendered text)."""

    def __init__(self):
        super().__init__()
        self.open, self.found = [], []

    def handle_starttag(self, tag, attrs):
        self.found += [f"<{tag} {name}={value!r}>" for name, value in attrs if MARK in (value or "")]
        if tag not in ("img", "br", "hr", "meta", "link", "input"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]

    def handle_data(self, data):
        if MARK in data and ("pre" not in self.open or {"script", "style"} & set(self.open)):
            self.found.append(f"{'/'.join(self.open[-3:])}: {data.strip()[:80]!r}")


def active(html: str) -> list:
    parser = ActiveContent()
    parser.feed(html)
    return parser.found


def test_the_hostile_notebook_is_active_as_it_is():
    assert len(active(formgrade_page(hostile_notebook()))) >= 8


def test_after_inert_nothing_is_active_and_the_course_s_text_still_renders():
    nb = inert(hostile_notebook(), frozenset({RELEASED}))
    html = formgrade_page(nb)
    assert active(html) == []
    assert "<strong>this</strong>" in html
    assert html.count("Written in the submission") == 3  # the markdown, the fence breaker, the raw cell


def test_what_is_left_out_is_named_and_a_good_image_stays():
    nb = hostile_notebook()
    nb.cells[1].execution_count = f'"><script>{MARK}()</script>'  # nbconvert refuses it: never rendered
    cell = inert(nb, frozenset()).cells[1]
    assert cell.execution_count is None
    outputs = cell.outputs
    assert outputs[0].data == {"text/plain": NOT_SHOWN.format("text/html")}
    assert outputs[1].data == {"text/plain": "js\n" + NOT_SHOWN.format("application/javascript")}
    assert outputs[3].data == {"text/plain": NOT_SHOWN.format("image/png")}
    assert outputs[4].data == {"image/png": PNG} and outputs[4].metadata == {}


class PreText(HTMLParser):
    """The text of the page's <pre> elements."""

    def __init__(self):
        super().__init__()
        self.depth, self.texts = 0, []

    def handle_starttag(self, tag, attrs):
        if tag == "pre":
            self.depth += 1
            self.texts.append("")

    def handle_endtag(self, tag):
        self.depth -= tag == "pre"

    def handle_data(self, data):
        if self.depth:
            self.texts[-1] += data


@pytest.mark.parametrize("source", ["plain *words*", "a ``` fence", "````\nfour\n````", "x < y & `a<b` $x^2$"])
def test_written_markdown_shows_its_text_exactly(source):
    nb = inert(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source)]), frozenset())
    parser = PreText()
    parser.feed(formgrade_page(nb))
    assert [text.strip("\n") for text in parser.texts] == [source]
