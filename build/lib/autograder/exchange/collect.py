"""The course's ``nbgrader collect`` (plugged in by nbgrader_config.py): only the student's own
plain files, at the time the exchange saw them, one student never stopping the rest.

nbgrader's own collect copies each inbound folder with ``shutil.copytree`` (which follows links)
and trusts the folder's name and the ``timestamp.txt`` inside it, all written by the student's
process. Here, for each student, newest folder first (by the folder's own change time):

* the folder is read by :func:`~autograder.exchange.inbound.read_inbound`: a link, a FIFO, a device,
  a socket or a file owned by any account but the one the folder's name claims (``Collect.accounts``
  maps a student id to its account; by default they are the same) refuses it, as does a size over
  nbgrader's ``CourseDirectory.max_file_size`` / ``max_dir_size``, counted as bytes are read;
* a refused folder costs one line (student, folder, reason) and the next older folder is tried; the
  copy in ``submitted/`` is never touched by a refused folder;
* the time the submission counts as made is the latest change time of the folder and its files,
  written as ``timestamp.txt`` in ``submitted/`` (what late penalties read). A student's own time
  that disagrees by more than a minute, and a file others could have written, go to review;
* what was copied and refused is recorded for grading (:mod:`autograder.exchange.records`).

Nothing a student's file holds is ever printed.
"""
import hashlib
import os
import pwd
import re
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from fnmatch import fnmatch

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default import ExchangeCollect
from nbgrader.utils import parse_utc
from traitlets import Dict, Unicode

from autograder.exchange.inbound import Caps, Inbound, Refused, read_inbound, shown
from autograder.exchange.records import Collected, CollectRecord, load_record, save_record
from autograder.exchange.root import CheckedRoot

STUDENT_ID = re.compile(r"[A-Za-z0-9._@-]{1,100}")  # nbgrader's exchange splits names on "+"
SECRET = re.compile(r"[0-9a-f]{16,256}")  # nbgrader's submit writes secrets.token_hex(64)
STAMP, SECRET_FILE = "timestamp.txt", "submission_secret.txt"
SLACK_S = 60  # a student's own time within this of the exchange's is not worth a look


@dataclass(frozen=True)
class Folder:
    """One entry of the inbound folder, as listed (nothing in it read yet)."""

    name: str
    student: str
    changed_ns: int  # the entry's own change time (lstat): the order a student's folders are tried in


def exchange_time(ns: int) -> str:
    """A time in nbgrader's timestamp format, UTC."""
    return datetime.fromtimestamp(ns / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def time_review(inbound: Inbound, claimed: str, seen: str) -> list:
    """Why the student's own times (timestamp.txt's and the folder name's) need a look, if they do:
    one line per time they claim that is more than a minute from the exchange's."""
    stamp = inbound.files.get(STAMP)
    if stamp is None:
        return [f"the submission has no {STAMP} (nbgrader's submit writes one); the exchange's time is used"]
    claims = {}
    for what, text in ((STAMP, stamp[:64].decode("utf-8", "replace").strip()), ("its folder name", claimed)):
        try:
            claims.setdefault(parse_utc(text), []).append(what)
        except (ValueError, OverflowError, TypeError):
            claims.setdefault(None, []).append(what)
    review = []
    for their, where in claims.items():
        if their is None:
            review.append(f"{' and '.join(where)} hold no time; the exchange's time ({seen[:19]} UTC) is used")
        elif abs((their - parse_utc(seen)).total_seconds()) > SLACK_S:
            review.append(f"{' and '.join(where)} say {their:%Y-%m-%d %H:%M:%S} UTC, the exchange saw the submission "
                          f"at {seen[:19]} UTC (the time used)")
    return review


class Collect(CheckedRoot, ExchangeCollect):
    """nbgrader's collect, reading each inbound folder as :mod:`autograder.exchange.inbound` does."""

    accounts = Dict(key_trait=Unicode(), value_trait=Unicode(), help=(
        "The OS account of each student id whose account name differs from it ({student id: account}); "
        "a submission is collected only when that account owns it and all it holds")).tag(config=True)

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.inbound_path = os.path.join(self.root, self.coursedir.course_id, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        self.duedate = self._duedate()
        self.folders = self._folders()

    def _duedate(self):
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                return gradebook.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def _folders(self) -> dict:
        """{student: their folders of this assignment, newest first}; a name that does not parse is one line."""
        wanted = self.coursedir.student_id
        found = {}
        for name in os.listdir(self.inbound_path):
            parts = name.rsplit("+", 3)
            if len(parts) < 3 or parts[1] != self.coursedir.assignment_id:
                continue
            student = parts[0]
            if wanted not in ("", "*") and not fnmatch(student, wanted):
                continue
            if not STUDENT_ID.fullmatch(student):
                self.log.warning("refused: folder %s: %s is not a valid student id", shown(name), shown(student))
                continue
            try:
                changed = os.lstat(os.path.join(self.inbound_path, name)).st_ctime_ns
            except OSError:
                continue  # gone since it was listed
            found.setdefault(student, []).append(Folder(name, student, changed))
        return {s: sorted(f, key=lambda f: (f.changed_ns, f.name), reverse=True) for s, f in found.items()}

    def init_dest(self):
        pass

    def copy_files(self):
        if not self.folders:
            self.log.warning("No submissions of '%s' for course '%s' to collect", self.coursedir.assignment_id,
                             self.coursedir.course_id)
            return
        self.log.info("Processing %d students' submissions of '%s' for course '%s'", len(self.folders),
                      self.coursedir.assignment_id, self.coursedir.course_id)
        for student in sorted(self.folders):
            try:
                self._collect(student, self.folders[student])
            except Exception as error:  # one student's folder, whatever it holds, never stops the others
                why = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
                self.log.error("%s: not collected, the grader failed: %s: %s", student, type(error).__name__, why)

    def _collect(self, student: str, folders: list) -> None:
        refused, chosen = [], None
        for folder in folders:
            try:
                inbound = self._read(folder)
            except (Refused, OSError) as why:
                line = f"folder {shown(folder.name)}: {why}"
                self.log.warning("refused: %s, %s", student, line)
                refused.append(line)
                continue
            if chosen is None:
                chosen = (folder, inbound)
            late = self.duedate is not None and parse_utc(exchange_time(inbound.changed_ns)) > self.duedate
            if not (self.before_duedate and late):
                chosen = (folder, inbound)
                break
        earlier = load_record(self.coursedir.root, self.coursedir.assignment_id, student)
        collected = (self._copy(student, *chosen) if chosen else None) or (earlier.collected if earlier else None)
        save_record(self.coursedir.root, CollectRecord(student, self.coursedir.assignment_id, collected, refused))

    def _read(self, folder: Folder) -> Inbound:
        account = self.accounts.get(folder.student, folder.student)
        try:
            uid = pwd.getpwnam(account).pw_uid
        except KeyError:
            raise Refused(f"there is no OS account {shown(account)} to own it (student ids that are not account "
                          "names are mapped by c.Collect.accounts in nbgrader_config.py)") from None
        caps = Caps(int(self.coursedir.max_file_size * 1000), int(self.coursedir.max_dir_size * 1000))
        inbound = read_inbound(os.path.join(self.inbound_path, folder.name), uid, self._wanted, caps)
        secret = inbound.files.get(SECRET_FILE)
        if secret is not None and not SECRET.fullmatch(secret.decode("ascii", "replace").strip()):
            raise Refused(f"{SECRET_FILE} is not what nbgrader's submit writes")
        return inbound

    def _wanted(self, relative: str, is_folder: bool) -> bool:
        """nbgrader's own rule (``CourseDirectory.ignore`` and ``include``) for what is copied."""
        name = relative.rsplit("/", 1)[-1]
        if any(fnmatch(name, glob) for glob in self.coursedir.ignore):
            return False
        return is_folder or not self.coursedir.include or any(fnmatch(name, g) for g in self.coursedir.include)

    def _copy(self, student: str, folder: Folder, inbound: Inbound) -> Collected | None:
        """Put the submission in submitted/ (whole, or not at all) when nbgrader's rules say so; what was
        copied, or None when the copy there is kept."""
        assignment_id = self.coursedir.assignment_id
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment_id)
        seen = exchange_time(inbound.changed_ns)
        existing = self._existing_time(dest)
        new = parse_utc(seen)
        if os.path.isdir(dest) and not ((self.update and (existing is None or new > existing))
                                        or (self.before_duedate and existing != new)):
            hint = "No newer submission to collect" if self.update else \
                "Submission already exists, use --update to update"
            self.log.info("%s: %s %s", hint, student, assignment_id)
            return None
        self.log.info("%s submission: %s %s", "Updating" if os.path.isdir(dest) else "Collecting", student,
                      assignment_id)
        files = {**{k: v for k, v in inbound.files.items() if k != STAMP}, STAMP: seen.encode()}
        _replace(dest, files)
        notebook = inbound.files.get(f"{assignment_id}.ipynb")
        return Collected(shown(folder.name), seen, hashlib.sha256(notebook).hexdigest() if notebook else "",
                         list(inbound.review) + time_review(inbound, folder.name.rsplit("+", 3)[2], seen))

    @staticmethod
    def _existing_time(dest: str):
        try:
            with open(os.path.join(dest, STAMP), encoding="utf-8") as handle:
                return parse_utc(handle.read(64).strip())
        except (OSError, ValueError, OverflowError, TypeError):
            return None


def _replace(dest: str, files: dict) -> None:
    """``dest`` holds exactly ``files`` ({relative path: bytes}) afterwards, or is as it was."""
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".collecting-", dir=parent)
    try:
        for relative, data in files.items():
            path = os.path.join(staging, *relative.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "xb") as handle:
                handle.write(data)
            os.chmod(path, 0o644)
        os.chmod(staging, 0o755)
        if os.path.isdir(dest):
            old = tempfile.mkdtemp(prefix=".replaced-", dir=parent)
            os.rename(dest, os.path.join(old, "submission"))
            os.rename(staging, dest)
            shutil.rmtree(old)
        else:
            os.rename(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
