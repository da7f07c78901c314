"""The grading self-check: every assignment's solutions, blank release and cases score as expected.

One `check` of the whole course (one process, its workers and fork servers shared by all
assignments), read per assignment."""
import html
import re

import pytest

from conftest import ASSIGNMENTS, ROOT, run_cli

pytestmark = pytest.mark.slow  # starts kernels, sandboxes, nbgrader or a browser


@pytest.fixture(scope="module")
def checked():
    """`check` of every assignment: (the process, {assignment id: its section of the report})."""
    done = run_cli("check")
    sections = re.split(rf"^(?=(?:{'|'.join(ASSIGNMENTS)})  \()", done.stdout, flags=re.M)
    return done, {section.split()[0]: section for section in sections[1:]}


@pytest.mark.parametrize("assignment_id", ASSIGNMENTS)
def test_every_case_scores_as_expected(checked, assignment_id):
    done, sections = checked
    assert assignment_id in sections, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [line for line in sections[assignment_id].splitlines() if line.startswith("  ") and " want " in line]
    assert rows and all(line.endswith(" ok") for line in rows), sections[assignment_id]
    assert any("every_assignment--" in line for line in rows)  # the generic attacks are graded too


def test_check_ends_all_as_expected(checked):
    done, _ = checked
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.rstrip().endswith("all as expected")


RULE_ATTACK = re.compile(r"--wrong--(calls_|op_registry|computed_getattr|torchscript_source|string_resolver|"
                         r"jit_get_operation|timeit_statement)")
OVERFLOW = re.compile(r"--wrong--(naive|log1p_overflow)$|logsumexp--wrong--no_max_shift")
NARROWED = re.compile(r"--wrong--float32_result$")  # float16 in, float32 out


def differed(section) -> dict:
    """{case: what its failing test's first differing check was} from a section of check's report."""
    found, case = {}, None
    for line in section.splitlines():
        if " want " in line:
            case = line.split()[0]
        elif line.strip().startswith("differed: ") and case:
            found[case] = line.strip().removeprefix("differed: ")
    return found


def report_groups(page) -> dict:
    """{(test, signature): [students]} from a report.html."""
    groups = {}
    for test, body in re.findall(r"<h3>(\w+)</h3>\n(.*?)(?=<h3>|</body>)", page, re.S):
        for signature, students in re.findall(r"<tr><td>(.*?)</td><td class=\"n\">\d+<div class=\"students\">(.*?)</div>",
                                              body):
            groups[(test, html.unescape(signature))] = students.split(", ")
    return groups


@pytest.mark.parametrize("assignment_id", ["01_nonassociativity", "02_norm_overflow", "06_stable_cross_entropy",
                                           "07_amp_gradscaler_tf32"])
def test_the_self_check_class_report_groups_wrong_answers_as_their_names_say(checked, assignment_id):
    """The self-check cases as a class: a rule attack lands in the method-rule group, an overflowing
    formula in a non-finite one, each case in its row's group; the largest group leads the page."""
    _, sections = checked
    found = differed(sections[assignment_id])
    assert found, sections[assignment_id]
    for case, signature in found.items():
        if RULE_ATTACK.search(case):
            assert signature == "method rule breach", (case, signature)
        if OVERFLOW.search(case):
            assert re.search(r"NaN|inf|finite|overflow", signature), (case, signature)
        if NARROWED.search(case):
            assert "float16" in signature, (case, signature)
    page = (ROOT / ".finite" / "check" / assignment_id / "report.html").read_text()
    groups = report_groups(page)
    for case, signature in found.items():
        test = "test_" + case.split("--")[0] if "--wrong--" in case else None
        if test:
            assert case.replace("-", "_") in groups.get((test, signature), []), (case, test, signature)
    largest = max(groups.items(), key=lambda item: len(item[1]))
    first = re.search(r"<ol><li>(.*?)</li>", page)[1]
    assert first.startswith(f"{largest[0][0]}: {len(largest[1])} students: "), (first, largest)
