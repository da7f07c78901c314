"""Per-student feedback as self-contained HTML: scores, errors, the learner's own cells.

Never shows test-cell source, hidden tests or solutions; every text shown is scrubbed of the
assignment's secret lines, since learner code could have captured and printed them.
"""
import base64
import html


STATUS_TEXT = {
    "graded": "Graded.",
    "unreadable": "Your file could not be read as a notebook, so nothing in it could be graded.",
    "timeout": "Grading stopped because your notebook ran over the time limit.",
    "kernel_died": "Your notebook's kernel died during grading (for example a crash or exit call).",
    "resource_limit": "Your notebook ran out of memory during grading.",
    "missing": "No notebook was found in your submission.",
}


def scrub(text, secrets):
    for line in secrets:
        if line in text:
            text = text.replace(line, "[hidden]")
    return text


def render_output(output, secrets):
    if output.output_type == "stream":
        return f"<pre class='out'>{html.escape(scrub(output.text, secrets))}</pre>"
    if output.output_type == "error":
        text = scrub(f"{output.ename}: {output.evalue}", secrets)
        return f"<pre class='err'>{html.escape(text)}</pre>"
    data = output.get("data", {})
    if "image/png" in data:
        png = data["image/png"]
        try:
            base64.b64decode(png, validate=True)
        except ValueError:
            return ""
        return f"<img alt='plot' src='data:image/png;base64,{png}'>"
    if "text/plain" in data:
        return f"<pre class='out'>{html.escape(scrub(data['text/plain'], secrets))}</pre>"
    return ""


def render(result, nb, assignment):
    """The feedback page for one student (``nb`` is the executed notebook, or None)."""
    secrets = assignment.secrets
    rows = []
    for name, points in assignment.tests.items():
        got = result.scores.get(name, 0.0)
        verdict = "passed" if got >= points else "failed"
        error = html.escape(scrub(result.errors.get(name, ""), secrets))
        rows.append(f"<tr class='{verdict}'><td>{html.escape(name)}</td><td>{got:g} / {points:g}</td>"
                    f"<td>{verdict}</td><td><code>{error}</code></td></tr>")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.notes)
    answers = []
    if nb is not None:
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("solution"):
                continue
            outputs = "".join(render_output(o, secrets) for o in cell.outputs)
            answers.append(f"<h3>{html.escape(meta.get('grade_id', ''))}</h3>"
                           f"<pre class='code'>{html.escape(cell.source)}</pre>{outputs}")
    title = f"{result.assignment} — feedback for {result.student}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; }}
tr.passed td:nth-child(3) {{ color: #1a7f37; }} tr.failed td:nth-child(3) {{ color: #cf222e; }}
pre {{ background: #f6f8fa; padding: .5rem; overflow-x: auto; }} pre.err {{ background: #ffebe9; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p><strong>Status:</strong> {html.escape(result.status)} — {html.escape(STATUS_TEXT[result.status])}</p>
<p><strong>Score:</strong> {result.score:g} / {result.max_score:g}</p>
{f"<ul>{notes}</ul>" if notes else ""}
<h2>Tests</h2>
<table><tr><th>test</th><th>points</th><th>result</th><th>last line of the error</th></tr>
{''.join(rows)}</table>
<h2>Your answers</h2>
{''.join(answers) or "<p>(none)</p>"}
</body></html>
"""
