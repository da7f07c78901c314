"""What ``collect`` saw of each student, kept where only the trusted side writes, for grading.

``collect`` writes one record per student and assignment under the course's ``.finite/collect/``
(never in ``submitted/``, which holds only what the student sent). Grading the course's own
``submitted/`` folder reads it back: the notes and review reasons of the submission it copied
(while that notebook is unchanged), and the folders it refused.
"""
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from autograder.grading.files import write_atomic

FOLDER = Path(".finite") / "collect"
COLLECT = "collect: "  # starts every line grading takes from a record


@dataclass(frozen=True)
class Collected:
    """The submission ``collect`` copied into ``submitted/``."""

    folder: str  # the inbound folder's name, escaped
    received: str  # the exchange's time (nbgrader's format), what timestamp.txt in submitted/ says
    notebook_sha256: str  # of ID.ipynb as copied ("" when the folder had none)
    review: list = field(default_factory=list)  # why a person should look (flagged in Manual Grading)


@dataclass(frozen=True)
class CollectRecord:
    """One student's collection of one assignment: what was copied, and what was refused since."""

    student: str
    assignment: str
    collected: Collected | None = None
    refused: list = field(default_factory=list)  # one line per refused folder newer than ``collected``

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)


def record_path(course_root, assignment_id: str, student: str) -> Path:
    return Path(course_root) / FOLDER / assignment_id / f"{student}.json"


def save_record(course_root, record: CollectRecord) -> None:
    write_atomic(record_path(course_root, record.assignment, record.student), record.to_json())


def load_record(course_root, assignment_id: str, student: str) -> CollectRecord | None:
    """The record ``collect`` left, or None (none, or not one this code wrote)."""
    try:
        data = json.loads(record_path(course_root, assignment_id, student).read_text())
        collected = Collected(**data["collected"]) if data.get("collected") else None
        return CollectRecord(data["student"], data["assignment"], collected, list(data.get("refused", [])))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def refused_students(course_root, assignment_id: str) -> list:
    """The students with a record of ``assignment_id``, by name."""
    folder = Path(course_root) / FOLDER / assignment_id
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


@dataclass(frozen=True)
class ExchangeNotes:
    """What grading one student takes from their record: notes for the page, reasons to review,
    and whether collect refused everything they sent (nothing was copied)."""

    notes: tuple = ()
    review: tuple = ()
    refused: bool = False

    @property
    def digest(self) -> str:
        """Part of the submission's identity for ``grade``'s reuse of a result: a new record regrades."""
        return hashlib.sha256(repr(self).encode()).hexdigest()[:16] if self != ExchangeNotes() else ""


def exchange_notes(course_root, assignment_id: str, student: str, notebook_sha256: str | None) -> ExchangeNotes:
    """The record's word on one student whose notebook (in the course's ``submitted/``) has
    ``notebook_sha256`` (None: no notebook there)."""
    record = load_record(course_root, assignment_id, student)
    if record is None:
        return ExchangeNotes()
    refused = tuple(f"{COLLECT}refused {line}" for line in record.refused)
    if notebook_sha256 is None:
        return ExchangeNotes(refused, (), bool(refused))
    collected = record.collected
    if collected is None or collected.notebook_sha256 != notebook_sha256:
        return ExchangeNotes(refused, refused)
    later = tuple(f"{COLLECT}a later submission was refused, {line}" for line in record.refused)
    return ExchangeNotes(later, tuple(f"{COLLECT}{line}" for line in collected.review) + later)
