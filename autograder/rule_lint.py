"""The authors' check of method rules: each list resolves, the exercise text states it word for word,
and the visible test checks it (``python -m autograder check`` refuses an assignment otherwise)."""
import re

from fplab.rules.allowlist import SHAPE_ENTRIES, SHAPE_NOTE, unresolved_entries

HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"
LIST_MARK = "**What you may call**"  # the exercise text's paragraph that states the allowlist
CLOSING = "Anything else costs this exercise's points"  # its fail-closed sentence


def stated_allowlist(markdown: str) -> list | None:
    """The entries (code spans) of a markdown cell's "What you may call" paragraph, or None."""
    for paragraph in markdown.split("\n\n"):
        if paragraph.startswith(LIST_MARK):
            return re.findall(r"`([^`]+)`", paragraph)
    return None


def rule_errors(assignment_id: str, source_nb) -> list:
    """What is wrong with a source notebook's method rules, one line each naming the assignment,
    the exercise and the entry: an entry that names nothing on this stack, a list the exercise
    text does not state word for word (shape operations aside: :data:`SHAPE_NOTE`), a visible test
    that does not check the rule, a missing fail-closed sentence, the retired ``forbid``."""
    errors = []
    for index, cell in enumerate(source_nb.cells):
        meta, finite = cell.metadata.get("nbgrader", {}), cell.metadata.get("finite", {})
        where = f"{assignment_id}: {meta.get('grade_id') or f'cell {index + 1}'}"
        if "forbid" in finite:
            errors.append(f"{where}: metadata.finite.forbid is retired; declare finite.allow (AUTHORING.md)")
        if "allow" not in finite:
            continue
        errors += [f"{where}: the allowlist entry {entry!r} does not resolve on this stack"
                   for entry in unresolved_entries(finite["allow"])]
        text = next((c.source for c in reversed(source_nb.cells[:index])
                     if c.cell_type == "markdown" and stated_allowlist(c.source) is not None), None)
        stated = stated_allowlist(text) if text is not None else None
        if stated is None:
            errors.append(f"{where}: no markdown above the answer cell states {LIST_MARK}")
            continue
        if SHAPE_NOTE not in text:
            errors.append(f"{where}: the {LIST_MARK} paragraph does not state fplab.rules.SHAPE_NOTE")
        errors += [f"{where}: the allowlist entry {entry!r} is a shape operation, allowed on every list: drop it"
                   for entry in sorted(SHAPE_ENTRIES & set(map(str, finite["allow"])))]
        for entry in sorted(set(map(str, finite["allow"])) - set(stated)):
            errors.append(f"{where}: the allowlist entry {entry!r} is not in the text's {LIST_MARK} list")
        for entry in sorted(set(stated) - set(map(str, finite["allow"]))):
            errors.append(f"{where}: the text's {LIST_MARK} list names {entry!r}, which the metadata does not allow")
        answer = meta.get("grade_id")
        test = next((c.source for c in source_nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"test_{answer}"), "")
        if f'check_rule("{answer}")' not in test.partition(HIDDEN_TESTS)[0]:
            errors.append(f"{where}: its visible test does not call check_rule({answer!r}) (fplab.rule_check: a "
                          "learner sees a breach before submitting)")
        if CLOSING not in text:
            errors.append(f"{where}: the exercise text does not say that anything else costs the points "
                          f"(\"{CLOSING}...\")")
    return errors
