"""A term on one server with real OS accounts (README, "A class on one server").

The instructor (root) keeps the course in a folder of their own (700) and releases through an
exchange outside it (1777, FINITE_EXCHANGE); alice, bob and carol have homes of 700 and work from a
venv built from the learner kit with the system Python. Each fetches, submits and fetches only
their own feedback; bob can read nothing of alice's. Skipped where accounts cannot be created.
"""
import csv
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.cases import with_answers
from autograder.term import (
    BY_HAND, ID, WORK, Accounts, instructor as term_instructor, nbgrader as term_nbgrader, run_term, scores,
)
from conftest import ROOT, run_cli
from helpers import GOOD_DOUBLE, GOOD_TRIPLE, TERM_JUDGED as JUDGED
from learner_env import learner_venv, system_python

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

COMMENT = BY_HAND[-1]


def why_not_here() -> str:
    if os.geteuid() != 0:
        return "needs root: it creates OS accounts (useradd) and acts as each (runuser)"
    missing = [tool for tool in ("useradd", "userdel", "runuser") if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (passwd, util-linux)"
    return system_python()


SAID = []  # what every command of a term printed, for the noise check
# The warnings a term may print, each for a reason the README gives (anything else is noise).
ALLOWED_WARNINGS = (
    re.compile(r"\[(Collect|Autograde)App \| WARNING\] .*(late|review)"),  # collect's own refusals and reviews
    # generate_feedback --force replaces the pages `grade` already staged in feedback/ (README, Feedback)
    re.compile(r"\[GenerateFeedbackApp \| WARNING\] Removing existing assignment: .*/feedback/"),
)


def noise(outputs) -> list:
    """The warning lines in ``outputs`` that are not on :data:`ALLOWED_WARNINGS`."""
    lines = {line.strip() for text in outputs for line in text.splitlines()}
    return sorted(line for line in lines if re.search(r"warn", line, re.I)
                  and not any(a.search(line) for a in ALLOWED_WARNINGS))


def nbgrader(*args, cwd, **env):
    """An nbgrader command in ``cwd`` with the course's environment (and ``env`` added)."""
    return term_nbgrader(*args, cwd=cwd, said=SAID, **env)


def test_an_exchange_root_nobody_can_write_is_named(monkeypatch, tmp_path):
    from autograder.exchange.root import root_problem

    exchange = SimpleNamespace(root=str(tmp_path))
    assert root_problem(exchange) == ""
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert root_problem(exchange).startswith(f"the exchange root {tmp_path} is not writable by ")
    exchange.root = str(tmp_path / "typo")
    assert root_problem(exchange).startswith(f"the exchange root {tmp_path / 'typo'} does not exist")


@pytest.mark.slow
def test_the_exchange_root_is_set_without_editing_files(tmp_path):
    """FINITE_EXCHANGE sets the root, --Exchange.root overrides it, a missing root stops the release
    with one line naming it, and the in-course exchange's warning comes once, only when in use."""
    course = make_course(tmp_path / "course")
    assert nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course).returncode == 0
    missing, elsewhere = tmp_path / "no-such-exchange", tmp_path / "exchange"
    done = nbgrader("release_assignment", ASSIGNMENT, cwd=course, FINITE_EXCHANGE=str(missing))
    assert done.returncode != 0 and not missing.exists() and not (course / ".exchange").exists()
    named = [line for line in done.stderr.splitlines() if str(missing) in line]
    assert named[0].endswith(f"INFO] exchange: {missing}"), done.stderr  # every command says which root it uses
    assert len(named) == 2 and "does not exist" in named[1], done.stderr

    elsewhere.mkdir()
    elsewhere.chmod(0o1777)
    done = nbgrader("release_assignment", ASSIGNMENT, f"--Exchange.root={elsewhere}", cwd=course,
                    FINITE_EXCHANGE=str(missing))
    assert done.returncode == 0 and (elsewhere / "finite" / "outbound" / ASSIGNMENT).is_dir(), done.stderr

    in_course = nbgrader("release_assignment", ASSIGNMENT, cwd=course)  # the in-course default: 0755, said so
    assert in_course.returncode == 0 and "the one-machine exchange" in in_course.stderr, in_course.stderr
    assert oct((course / ".exchange").stat().st_mode & 0o7777) == "0o755"
    assert (course / ".exchange" / "finite" / "inbound").stat().st_mode & stat.S_ISVTX  # no rename of another's folder
    (course / "feedback").mkdir()
    warned = nbgrader("release_feedback", ASSIGNMENT, cwd=course)
    assert warned.returncode == 0 and (warned.stdout + warned.stderr).count("shared OS account") == 1, warned.stderr
    for where in ({"FINITE_EXCHANGE": str(elsewhere)}, {}):
        flags = [] if where else [f"--Exchange.root={elsewhere}"]
        quiet = nbgrader("release_feedback", ASSIGNMENT, *flags, cwd=course, **where)
        assert quiet.returncode == 0 and "shared OS account" not in quiet.stdout + quiet.stderr, quiet.stderr


def instructor(*args, course, exchange):
    """An nbgrader command run by the instructor in the course, the exchange set by FINITE_EXCHANGE."""
    return term_instructor(*args, course=course, exchange=exchange, said=SAID)


@pytest.fixture(scope="module")
def server():
    """(base folder, accounts): the courses, the exchanges, the kit and the homes live under base."""
    base = Path(tempfile.mkdtemp(prefix="finite-term-"))
    base.chmod(0o755)
    accounts = None
    try:
        kit = base / "kit"
        done = run_cli("kit", str(kit), timeout=600)
        assert done.returncode == 0, done.stderr
        accounts = Accounts(base, learner_venv(kit), SAID)
        for who in WORK:
            accounts.create(who)
        yield base, accounts
    finally:
        if accounts:
            accounts.remove()
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.skipif(bool(why_not_here()), reason=why_not_here() or "runs here")
@pytest.mark.sandbox
def test_a_term_on_real_accounts(server):
    """`python -m autograder term`'s steps (autograder/term.py), then what no step of it checks."""
    base, accounts = server
    SAID.clear()
    said = []
    term = run_term(ROOT, accounts, say=said.append)
    course, exchange, pages = term.course, term.exchange, term.pages
    name = {who: accounts.name(who) for who in WORK}
    assert [line.split(":")[0] for line in said] == [
        "accounts", "release", "fetch, work, submit", "collect", "grade", "by hand", "feedback"], said
    assert oct(exchange.stat().st_mode & 0o7777) == "0o1777"  # nbgrader keeps the sticky bit
    ran = accounts.run("alice", "python", "-c", "import fplab, torch; print(fplab.__file__, torch.__version__)")
    assert ran.stdout.startswith(str(accounts.venv)) and "2.13.0" in ran.stdout, ran.stdout  # the kit's fplab
    for who in WORK:
        record = json.loads((course / ".finite" / "collect" / ID / f"{name[who]}.json").read_text())
        assert record["collected"]["review"] == [] and record["refused"] == [], record
    assert term.judged == {name[w]: s for w, s in JUDGED.items()}
    final = {name[w]: s for w, s in {**JUDGED, "bob": 8.0}.items()}
    assert term.final == final and "grade again ran nothing" in said[5]
    released = next(text for text in reversed(SAID) if "Feedback released to: " in text)
    assert "shared OS account" not in released  # not the in-course exchange: no warning
    assert "-tmp.html" not in released  # the page, not nbgrader's temporary copy
    for who in WORK:
        assert not any(name[other] in pages[who] for other in WORK if other != who)

    # bob can read nothing of alice's: not her home, not the exchange's submissions or pages.
    alice = accounts.home("alice")
    secret = next(alice.rglob("submission_secret.txt"))
    for what, argv in {
        "alice's home": ["ls", alice],
        "alice's notebook": ["cat", alice / ID / f"{ID}.ipynb"],
        "alice's submission secret (names her page)": ["cat", secret],
        "alice's feedback page": ["cat", next((alice / ID / "feedback").rglob("*.html"))],
        "the submissions in the exchange": ["ls", exchange / "finite" / "inbound"],
        "the pages in the exchange": ["ls", exchange / "finite" / "feedback"],
        "the course folder": ["ls", course],
    }.items():
        tried = accounts.run("bob", *argv, check=False)
        assert tried.returncode != 0 and "Permission denied" in tried.stderr, (what, tried.stdout, tried.stderr)
    moved = accounts.run("bob", "mv", exchange / "finite", exchange / "mine", check=False)
    assert moved.returncode != 0 and (exchange / "finite").is_dir(), moved.stderr  # the sticky bit

    check_manual_grades_reach_everything(course, base, pages, final, term.summary_before)
    assert noise(SAID) == [], "\n".join(noise(SAID))


def check_manual_grades_reach_everything(course, base, pages, final, summary_before):
    """bob's page, nbgrader export, grades.csv and summary.png all hold the grade set by hand."""
    assert "Score:</strong> 8 / 12" in pages["bob"] and "2 / 3 (graded by hand)" in pages["bob"]
    assert COMMENT in pages["bob"]
    assert "Score:</strong> 12 / 12" in pages["alice"] and "Score:</strong> 0 / 12" in pages["carol"]
    done = nbgrader("export", "--to", str(base / "export.csv"), cwd=course)
    assert done.returncode == 0, done.stderr
    with (base / "export.csv").open() as file:
        exported = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(file)}
    assert exported == final
    assert scores(course) == final
    assert (course / "grading" / ID / "summary.png").read_bytes() != summary_before  # bob's total moved


# ------------------------------------------------------------------ the exchange, attacked

GOOD = {"double": GOOD_DOUBLE, "triple": GOOD_TRIPLE}


def attacks(inbound: Path, source: Path, stamp: str) -> str:
    """A shell script mallory runs as herself: each folder one way of taking what is not hers, and
    one folder forged in bob's name (``BOB`` is replaced with his account)."""
    nb = f"{FX}.ipynb"
    folders = {
        "to-source": f"ln -s {source / FX / nb} \"$d/{nb}\"",
        "shadow": f"cp \"$OWN\" \"$d/{nb}\"; ln -s /etc/shadow \"$d/timestamp.txt\"",
        "fifo": f"mkfifo \"$d/{nb}\"",
        "zero": f"ln -s /dev/zero \"$d/{nb}\"",
    }
    script = [f"set -e; cd '{inbound}'"]
    for suffix, make in folders.items():
        script.append(f"d=\"$ME+{FX}+{stamp}+{suffix}\"; mkdir \"$d\"; {make}")
    script.append(f"ln -s {source / FX} \"$ME+{FX}+{stamp}+folder-link\"")
    script.append(f"d=\"BOB+{FX}+{stamp}+forged\"; mkdir \"$d\"; cp \"$OWN\" \"$d/{nb}\"; echo '{stamp}' > \"$d/timestamp.txt\"")
    return "\n".join(script)


FX = "fx"


@pytest.mark.slow
@pytest.mark.skipif(bool(why_not_here()), reason=why_not_here() or "runs here")
@pytest.mark.sandbox
def test_the_exchange_gives_no_student_anything_that_is_not_theirs(server):
    """Through nbgrader's own collect on real accounts: a link to the instructor's source (file or
    folder), a link to a secret, a FIFO, /dev/zero and a folder forged in another's name are each
    refused with one line; a backdated time and a change after the deadline are counted late; alice,
    the control, and bob, the forger's victim, are collected and graded exactly as the honest are."""
    from datetime import datetime, timedelta, timezone

    from nbgrader.api import Gradebook

    base, accounts = server
    for who in ("mallory", "dave", "frank"):
        accounts.create(who)
    name = {who: accounts.name(who) for who in ("alice", "bob", "mallory", "dave", "frank")}
    course = make_course(base / "fx-course").resolve()
    course.chmod(0o700)
    exchange = base / "fx-exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    instructor("generate_assignment", FX, "--force", course=course, exchange=exchange)
    instructor("release_assignment", FX, course=course, exchange=exchange)
    inbound = exchange / "finite" / "inbound"
    flags = ["--course", "finite", f"--Exchange.root={exchange}"]

    def work(who, answers):
        accounts.run(who, "nbgrader", "fetch_assignment", FX, *flags)
        path = accounts.home(who) / FX / f"{FX}.ipynb"
        owner = path.stat()
        nbformat.write(with_answers(nbformat.read(path, as_version=4), answers), path)
        os.chown(path, owner.st_uid, owner.st_gid)

    def submit(who) -> Path:
        accounts.run(who, "nbgrader", "submit", FX, *flags)
        return max(inbound.glob(f"{name[who]}+{FX}+*"), key=lambda p: p.stat().st_ctime)

    for who in ("alice", "bob", "mallory", "dave", "frank"):
        work(who, GOOD)
    for who in ("alice", "bob", "frank"):
        submit(who)
    frank = max(inbound.glob(f"{name['frank']}+{FX}+*"))
    time.sleep(1.1)
    due = datetime.now(timezone.utc).replace(tzinfo=None)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.update_or_create_assignment(FX, duedate=due)
    time.sleep(1.1)

    # After the deadline: dave submits and backdates it; frank changes his on-time submission.
    dave = submit("dave")
    early = (datetime.now(timezone.utc) - timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    accounts.run("dave", "sh", "-c", f"printf '%s' '{early}' > '{dave}/timestamp.txt'; "
                                     f"touch -d '2 hours ago' '{dave}'/* '{dave}'")
    accounts.run("frank", "sh", "-c", f"echo >> '{frank}/{FX}.ipynb'; touch -d '2 hours ago' '{frank}'/*")
    own = accounts.home("mallory") / FX / f"{FX}.ipynb"
    script = attacks(inbound, course / "source", early).replace("BOB", name["bob"])
    accounts.run("mallory", "sh", "-c", f"ME={name['mallory']}; OWN='{own}'\n{script}")

    done = instructor("collect", FX, course=course, exchange=exchange)
    refused = [line for line in done.stderr.splitlines() if "refused:" in line]
    assert len(refused) == 6, done.stderr
    assert sum(f"refused: {name['mallory']}, folder " in line for line in refused) == 5
    assert any(f"refused: {name['bob']}," in line and f"belongs to the account {name['mallory']}" in line
               for line in refused)
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted(
        name[w] for w in ("alice", "bob", "dave", "frank"))

    out = course / "grading" / FX
    graded = run_cli("--course", str(course), "grade", str(course / "submitted"), "--assignment", FX,
                     "--out", str(out), "--workers", "2", timeout=900)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with (out / "grades.csv").open() as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    assert {s: (r["status"], r["score"]) for s, r in rows.items()} == {
        name["alice"]: ("graded", "5"), name["bob"]: ("graded", "5"), name["mallory"]: ("refused", "0"),
        name["dave"]: ("graded", "5"), name["frank"]: ("graded", "5")}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        late = {s: gradebook.find_submission(FX, s).total_seconds_late for s in rows if s != name["mallory"]}
    assert late[name["alice"]] == late[name["bob"]] == 0, late
    assert late[name["dave"]] > 0 and late[name["frank"]] > 0, late  # the exchange's time, not theirs

    printed = done.stdout + done.stderr + graded.stdout + graded.stderr
    taken, kept = ("".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file() and p.suffix != ".png")
                   for folder in (course / "submitted", out))  # what students sent; what they get back
    assert "BEGIN SOLUTION" not in taken + kept and "BEGIN HIDDEN TESTS" not in taken + kept
    autograded = "".join(p.read_text() for p in (course / "autograded").rglob("*.ipynb"))  # hidden tests restored
    shadow = Path("/etc/shadow").read_text().splitlines()[0]
    assert shadow not in printed + taken + kept + autograded
