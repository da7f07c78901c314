"""Recognising the instructor's source text (solution and hidden-test lines) in other text: the
kit's leak scan and the admission of a submission both ask it.

A line is checked when it carries at least MIN_TOKENS tokens (names, numbers, strings, operators;
keywords and brackets do not count): `return x`, `pass`, `else:` say nothing. Text quotes the
source when the checked lines found in it weigh LEAK_TOKENS or more together: one long line alone,
or several short ones (01's quiz key, `q1 = "c"` and three more, weighs 16). Generic code shares a
few lines with the solutions: of 400 library files in the course's venv, 13 held some, weighing at
most 8.
"""
import keyword
import re

MIN_TOKENS = 3
LEAK_TOKENS = 10
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"[^\"]*\"|'[^']*'|[-+*/%@<>=!&|^~]+")
MARKER = re.compile(r"^[ \t]*#+[ \t]*(BEGIN|END) (SOLUTION|HIDDEN TESTS)", re.M)


def weight(line: str) -> int:
    """How much a line says: its names, numbers, strings and operators, keywords left out."""
    return sum(1 for token in TOKEN.findall(line) if not keyword.iskeyword(token))


def checked_lines(regions, public: str) -> list:
    """The lines of ``regions`` worth checking: at least MIN_TOKENS, shown nowhere in ``public``
    (whitespace stripped), in order."""
    lines = (line.strip() for region in regions for line in region.splitlines())
    return list(dict.fromkeys(line for line in lines if weight(line) >= MIN_TOKENS and line not in public))


def quoted(text: str, lines) -> list:
    """The ``lines`` that ``text`` quotes, when together they weigh LEAK_TOKENS or more; else []."""
    hits = [line for line in lines if line in text]
    return hits if sum(weight(line) for line in hits) >= LEAK_TOKENS else []


def json_strings(value):
    """Every string of a parsed JSON value (a notebook), keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)
