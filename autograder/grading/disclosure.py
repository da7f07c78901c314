"""What feedback may show: text that does not decode to hidden tests or solutions.

Learner code runs while hidden tests are in the kernel, so any text it prints may carry them,
reversed, base64-encoded, split up with spaces. :class:`SecretFilter` compares every text, and
a set of its decodings, with the hidden material as runs of letters and digits; a text that
shares a run of ``SHINGLE`` of them with hidden material (and that public text does not also
contain) is withheld whole.
"""
import ast
import base64
import binascii
import codecs
import re
import sys
import warnings
import zlib
from functools import cache
from pathlib import Path

SHINGLE = 20  # letters and digits in a row that count as a quotation
MAX_TEXT = 4000  # characters of one output shown in feedback
ENCODED_RUN = re.compile(r"[A-Za-z0-9+/=_\-]{16,}")
HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){10,}")
WITHHELD = "[withheld: this output matches hidden test or solution text]"


@cache
def grader_paths() -> tuple:
    """(folder, what a learner reads instead) for the grader's own folders the sandbox binds at
    their host paths (its Python and venv, wherever the instructor keeps the course), longest first:
    a warning or traceback names them, and they are the server's, not the learner's."""
    pairs = set()
    for folder, label in ((sys.prefix, "<python env>"), (sys.base_prefix, "<python>")):
        pairs |= {(str(Path(folder).resolve()), label), (str(Path(folder).absolute()), label)}
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


def hide_grader_paths(text: str) -> str:
    """``text`` with every folder of :func:`grader_paths` replaced by its label."""
    for folder, label in grader_paths():
        text = text.replace(folder + "/", label + "/")
    return text


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _shingles(normal: str) -> set:
    return {normal[i:i + SHINGLE] for i in range(max(len(normal) - SHINGLE + 1, 0))}


class SecretFilter:
    """Recognises hidden material (``secrets``) in text, ignoring what ``public`` text holds."""

    def __init__(self, secrets: list, public: list):
        public_shingles = set().union(*(_shingles(_normal(t)) for t in public)) if public else set()
        self.shingles = set().union(*(_shingles(_normal(t)) for t in secrets)) - public_shingles if secrets else set()

    def leaks(self, text: str) -> bool:
        """True when ``text`` or one of its decodings quotes hidden material."""
        return any(self._quotes(candidate) for candidate in _decodings(text))

    def _quotes(self, text: str) -> bool:
        normal = _normal(text)
        return any(normal[i:i + SHINGLE] in self.shingles for i in range(max(len(normal) - SHINGLE + 1, 0)))

    def clean(self, text: str, limit: int = MAX_TEXT) -> str:
        """``text`` cut to ``limit`` characters, or a notice when it quotes hidden material."""
        if self.leaks(text):
            return WITHHELD
        return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters]"


def _decodings(text: str, depth: int = 0):
    """``text``, reversed, ROT13, and what its base64 / base32 / hex / escaped runs decode to."""
    yield text
    yield text[::-1]
    yield codecs.decode(text, "rot13")
    if depth >= 2:
        return
    for decoded in _decoded_runs(text):
        yield from _decodings(decoded, depth + 1)


def _decoded_runs(text: str):
    blobs = []
    for run in ENCODED_RUN.findall(text):
        for decode in (base64.b64decode, base64.urlsafe_b64decode, base64.b32decode):
            try:
                blobs.append(decode(run + "=" * (-len(run) % 4)))
            except (binascii.Error, ValueError):
                pass
    for run in HEX_RUN.findall(text):
        blobs.append(bytes.fromhex(run))
    blobs += [inflated for inflated in map(_inflate, blobs) if inflated]
    for blob in blobs:
        yield blob.decode("utf-8", errors="ignore")
    if "\\" in text:
        with warnings.catch_warnings():  # "invalid escape sequence": the text is anybody's
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                unescaped = codecs.decode(text, "unicode_escape")
            except (UnicodeDecodeError, ValueError):
                unescaped = None
        if unescaped is not None:
            yield unescaped


def _inflate(blob: bytes) -> bytes:
    try:
        return zlib.decompress(blob)
    except zlib.error:
        return b""


def assertion_templates(source: str) -> list:
    """Regexes for the messages of the ``assert`` statements in ``source`` (a visible test).

    Literal parts must appear as written; each formatted field may hold up to 120 characters.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    patterns = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert) or node.msg is None:
            continue
        if isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
            patterns.append(re.escape(node.msg.value))
        elif isinstance(node.msg, ast.JoinedStr):
            patterns.append("".join(
                re.escape(part.value) if isinstance(part, ast.Constant) else ".{0,120}?"
                for part in node.msg.values))
    return [re.compile(p, re.S) for p in patterns]
