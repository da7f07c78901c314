"""The course's nbgrader collect on one account (student ids mapped to it with c.Collect.accounts),
then grading what it collected: every bad folder costs its student one line and a status, the class
is collected, and the exchange's time is the one recorded. Real accounts: tests/test_term.py."""
import csv
import getpass
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, run_cli

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

ID = ASSIGNMENT
ME = getpass.getuser()
STUDENTS = ("alice", "bob", "carol", "dave", "erin", "gina")
SECRET = "ab" * 64
pytestmark = pytest.mark.slow


def nbgrader(*args, cwd):
    env = {**{k: v for k, v in os.environ.items() if k != "FINITE_EXCHANGE"},
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    base = tmp_path_factory.mktemp("collect")
    course = make_course(base / "course")
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.Collect.accounts = {dict.fromkeys(STUDENTS, ME)!r}\n")
    for step in (("generate_assignment", ID, "--force"), ("release_assignment", ID)):
        done = nbgrader(*step, cwd=course)
        assert done.returncode == 0, done.stderr
    inbound = course / ".exchange" / "finite" / "inbound"
    release = (course / "release" / ID / f"{ID}.ipynb").read_text()
    now = datetime.now(timezone.utc)

    def submit(student, claimed=now, files=None, suffix="x"):
        folder = inbound / f"{student}+{ID}+{stamp(claimed)}+{suffix}"
        folder.mkdir(mode=0o755)
        for name, text in {f"{ID}.ipynb": release, "timestamp.txt": stamp(claimed),
                           "submission_secret.txt": SECRET, **(files or {})}.items():
            if text is not None:
                (folder / name).write_text(text)
        return folder

    submit("alice")
    submit("bob", now - timedelta(minutes=5), suffix="old")  # made now: the exchange's time says so
    fifo = submit("bob", files={f"{ID}.ipynb": None}, suffix="new")
    os.mkfifo(fifo / f"{ID}.ipynb")
    (submit("carol", files={f"{ID}.ipynb": None}) / f"{ID}.ipynb").symlink_to("/dev/zero")
    shadow = submit("carol", now - timedelta(minutes=1), files={"timestamp.txt": None}, suffix="shadow")
    (shadow / "timestamp.txt").symlink_to("/etc/shadow" if os.path.exists("/etc/shadow") else "/etc/passwd")
    submit("dave", now - timedelta(hours=2))  # a backdated timestamp.txt and folder name
    submit("erin", files={f"{ID}.ipynb": "not a notebook"})
    submit("gina", files={f"{ID}.ipynb": (course / "source" / ID / f"{ID}.ipynb").read_text()})  # a copy, not a link
    submit("+bad")
    first = nbgrader("collect", ID, cwd=course)

    (inbound / f"alice+{ID}+{stamp(now)}+link").symlink_to(course / "source" / ID)
    update = nbgrader("collect", "--update", ID, cwd=course)
    grade = run_cli("--course", str(course), "grade", str(course / "submitted"), "--assignment", ID,
                    "--out", str(base / "out"), "--workers", "2")
    rows = {r["student"]: r for r in csv.DictReader((base / "out" / "grades.csv").open())} \
        if (base / "out" / "grades.csv").exists() else {}
    autograde = {s: nbgrader("autograde", ID, "--student", s, "--force", cwd=course) for s in ("bob", "gina")}
    return dict(course=course, first=first, update=update, grade=grade, rows=rows, now=now, out=base / "out",
                autograde=autograde)


def lines(done, word="refused"):
    return [line for line in done.stderr.splitlines() if f"| WARNING] {word}" in line]


def test_each_bad_folder_is_one_line_and_the_class_is_collected(collected):
    first = collected["first"]
    assert first.returncode == 0, first.stderr
    refused = lines(first)
    assert len(refused) == 4, first.stderr
    assert any("bob, folder bob+" in line and f"{ID}.ipynb is a FIFO" in line for line in refused)
    assert any("carol, folder carol+" in line and f"{ID}.ipynb is a symbolic link" in line for line in refused)
    assert any("carol, folder carol+" in line and "timestamp.txt is a symbolic link" in line for line in refused)
    assert any("folder +bad+" in line and "is not a valid student id" in line for line in refused)
    submitted = collected["course"] / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob", "dave", "erin", "gina"]
    assert "root:" not in first.stdout + first.stderr and "nologin" not in first.stdout + first.stderr


def test_what_collect_copies_is_the_students_files_and_the_exchanges_time(collected):
    folder = collected["course"] / "submitted" / "dave" / ID
    assert sorted(p.name for p in folder.iterdir()) == [f"{ID}.ipynb", "submission_secret.txt", "timestamp.txt"]
    recorded = datetime.strptime(folder.joinpath("timestamp.txt").read_text(), "%Y-%m-%d %H:%M:%S.%f UTC")
    assert abs(recorded.replace(tzinfo=timezone.utc) - collected["now"]) < timedelta(minutes=1)  # not 2 hours ago
    record = json.loads((collected["course"] / ".finite" / "collect" / ID / "dave.json").read_text())
    assert record["collected"]["review"] == [
        f"timestamp.txt and its folder name say {collected['now'] - timedelta(hours=2):%Y-%m-%d %H:%M:%S} UTC, the "
        f"exchange saw the submission at {folder.joinpath('timestamp.txt').read_text()[:19]} UTC (the time used)"]


def test_a_refused_update_leaves_the_collected_copy_and_is_recorded(collected):
    update = collected["update"]
    assert update.returncode == 0, update.stderr
    assert any("alice, folder alice+" in line and "the submission folder is a symbolic link" in line
               for line in lines(update))
    notebook = collected["course"] / "submitted" / "alice" / ID / f"{ID}.ipynb"
    assert "BEGIN SOLUTION" not in notebook.read_text()


def test_grading_reads_what_collect_said(collected):
    grade, rows = collected["grade"], collected["rows"]
    assert grade.returncode == 0, grade.stdout + grade.stderr
    assert {s: r["status"] for s, r in rows.items()} == {
        "alice": "graded", "bob": "graded", "carol": "refused", "dave": "graded", "erin": "unreadable",
        "gina": "review"}
    assert rows["gina"]["score"] == "0" and "holds source text" in rows["gina"]["notes"]
    assert "collect: refused folder carol+" in rows["carol"]["notes"]
    assert "collect: a later submission was refused, folder bob+" in rows["bob"]["review"]
    assert "collect: a later submission was refused, folder alice+" in rows["alice"]["review"]
    assert "timestamp.txt and its folder name say" in rows["dave"]["review"]
    assert rows["bob"]["notes"].count("a later submission was refused") == 1
    page = (collected["out"] / "feedback" / "carol" / f"{ID}.html").read_text()
    assert "Status:</strong> refused" in page and "is a symbolic link" in page


def test_nbgrader_autograde_reads_what_collect_said_too(collected):
    bob, gina = collected["autograde"]["bob"], collected["autograde"]["gina"]
    assert bob.returncode == 0, bob.stderr
    assert "bob: review: collect: a later submission was refused, folder bob+" in bob.stderr
    assert "bob: note: collect: a later submission was refused" in bob.stderr
    assert gina.returncode == 0 and "gina: review, 0 / 5" in gina.stderr, gina.stderr  # never run


def test_what_collect_refused_is_in_manual_grading(collected):
    from nbgrader.api import Gradebook

    course = collected["course"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        flagged = {s: gradebook.find_submission_notebook(ID, ID, s).needs_manual_grade for s in collected["rows"]}
    assert flagged == {"alice": True, "bob": True, "carol": True, "dave": True, "erin": False, "gina": True}
    shown = nbformat.read(course / "autograded" / "carol" / ID / f"{ID}.ipynb", as_version=4)
    texts = ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in shown.cells if c.cell_type == "code"]
    assert any("needs manual grading: status refused: collect: refused folder carol+" in t for t in texts)
