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
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.cases import Case, build_submission
from autograder.course import Course, answer_cells
from conftest import ROOT, run_cli
from learner_env import learner_venv, system_python

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from make_fixture_course import ASSIGNMENT, make_course  # noqa: E402

ID = "02_norm_overflow"
CASES = ROOT / "cases" / ID
# Answers from the course's self-check cases: alice all right (written unlike the solution), bob
# right on 6 of 12 points, carol wrong everywhere.
WORK = {
    "alice": ("safe_norm--right--hypot_fold", "safe_normalize--right--clamped_norm",
              "stable_softplus--right--logaddexp", "quiz--right--uppercase_spaces"),
    "bob": ("safe_norm--right--power_of_two_scale", "safe_normalize--wrong--eps_inside_sqrt",
            "stable_softplus--wrong--log1p_overflow", "quiz--right--uppercase_spaces"),
    "carol": ("safe_norm--wrong--sum_of_squares", "safe_normalize--wrong--f_normalize_formula",
              "stable_softplus--wrong--naive", "quiz--wrong--misread_mechanisms"),
}
JUDGED = {"alice": 12.0, "bob": 6.0, "carol": 0.0}
COMMENT = "Close: the max shift is right, but log1p(exp(x)) still overflows past x = 88. Two of three by hand."


def why_not_here() -> str:
    if os.geteuid() != 0:
        return "needs root: it creates OS accounts (useradd) and acts as each (runuser)"
    missing = [tool for tool in ("useradd", "userdel", "runuser", "bwrap") if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (bwrap: apt-get install bubblewrap; the rest: passwd, util-linux)"
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
    env = {**{k: v for k, v in os.environ.items() if k != "FINITE_EXCHANGE"}, **env,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    SAID.append(done.stdout + done.stderr)
    return done


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
    done = nbgrader(*args, cwd=course, FINITE_EXCHANGE=str(exchange))
    assert done.returncode == 0, done.stdout + done.stderr
    return done


class Accounts:
    """Real OS accounts with homes of 700 under ``base``; removed with their homes at the end."""

    def __init__(self, base: Path, venv: Path):
        self.base, self.venv = base, venv
        self.suffix = base.name.rsplit("-", 1)[-1][:6].lower()
        self.created = []

    def name(self, who: str) -> str:
        return f"{who}_{self.suffix}"

    def home(self, who: str) -> Path:
        return self.base / "home" / self.name(who)

    def create(self, who: str) -> None:
        subprocess.run(["useradd", "--create-home", "--home-dir", self.home(who), "-K", "HOME_MODE=0700",
                        "--shell", "/bin/sh", self.name(who)], check=True, capture_output=True)
        self.created.append(self.name(who))

    def run(self, who: str, *argv, check=True, timeout=600):
        """``argv`` as that account, in its home, with the learners' venv first on PATH."""
        env = ["env", "-i", f"HOME={self.home(who)}", f"USER={self.name(who)}", f"LOGNAME={self.name(who)}",
               f"PATH={self.venv / 'bin'}:/usr/bin:/bin", "LANG=C.UTF-8"]
        done = subprocess.run(["runuser", "-u", self.name(who), "--", *env, *map(str, argv)], cwd=self.home(who),
                              capture_output=True, text=True, timeout=timeout)
        SAID.append(done.stdout + done.stderr)
        if check:
            assert done.returncode == 0, f"{who}: {' '.join(map(str, argv))}\n{done.stdout}{done.stderr}"
        return done

    def each(self, step) -> dict:
        """``step(who)`` for the three students at once, as a class would."""
        with ThreadPoolExecutor(len(WORK)) as pool:
            return dict(zip(WORK, pool.map(step, WORK)))

    def remove(self) -> None:
        for name in self.created:
            subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)


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
        accounts = Accounts(base, learner_venv(kit))
        (base / "home").mkdir(mode=0o755)
        for who in WORK:
            accounts.create(who)
        yield base, accounts
    finally:
        if accounts:
            accounts.remove()
        shutil.rmtree(base, ignore_errors=True)


def fill(notebook: Path, who: str, course: Course) -> None:
    """The student's answers from the cases, written into their fetched notebook (still theirs)."""
    cases = {name.split("--")[0]: (CASES / f"{name}.py").read_text() for name in WORK[who]}
    solutions = answer_cells(course.source_notebook(ID))
    owner = notebook.stat()
    nb = build_submission(nbformat.read(notebook, as_version=4), solutions, Case(who, cases))
    nbformat.write(nb, notebook)
    os.chown(notebook, owner.st_uid, owner.st_gid)


@pytest.mark.slow
@pytest.mark.skipif(bool(why_not_here()), reason=why_not_here() or "runs here")
def test_a_term_on_real_accounts(server):
    base, accounts = server
    SAID.clear()
    course = Course(ROOT).copy_to(base / "course", [ID]).resolve()
    course.chmod(0o700)
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    name = {who: accounts.name(who) for who in WORK}
    pages = {}

    # Release, through the exchange the instructor names with FINITE_EXCHANGE.
    instructor("generate_assignment", ID, "--force", course=course, exchange=exchange)
    instructor("release_assignment", ID, course=course, exchange=exchange)
    assert (exchange / "finite" / "outbound" / ID / f"{ID}.ipynb").is_file()
    assert oct(exchange.stat().st_mode & 0o7777) == "0o1777"  # nbgrader keeps the sticky bit

    # Each student fetches, works, submits, as themselves.
    student_flags = ["--course", "finite", f"--Exchange.root={exchange}"]
    accounts.each(lambda who: accounts.run(who, "nbgrader", "fetch_assignment", ID, *student_flags))
    mine = Course(course)
    for who in WORK:
        fill(accounts.home(who) / ID / f"{ID}.ipynb", who, mine)
    ran = accounts.run("alice", "python", "-c", "import fplab, torch; print(fplab.__file__, torch.__version__)")
    assert ran.stdout.startswith(str(accounts.venv)) and "2.13.0" in ran.stdout, ran.stdout  # the kit's fplab
    accounts.each(lambda who: accounts.run(who, "nbgrader", "submit", ID, *student_flags))

    # The instructor collects and grades: the kit's submit left nothing another account could write.
    instructor("collect", ID, course=course, exchange=exchange)
    for who in WORK:
        record = json.loads((course / ".finite" / "collect" / ID / f"{name[who]}.json").read_text())
        assert record["collected"]["review"] == [] and record["refused"] == [], record
    grade = ["--course", str(course), "grade", str(course / "submitted"), "--assignment", ID,
             "--out", str(course / "grading" / ID), "--workers", "2"]
    done = run_cli(*grade, timeout=900)
    SAID.append(done.stdout + done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    assert table(course) == {name[w]: s for w, s in JUDGED.items()}
    summary_before = (course / "grading" / ID / "summary.png").read_bytes()

    # A score and a comment by hand, through nbgrader's gradebook (what the Formgrader writes).
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.find_grade("test_stable_softplus", ID, ID, name["bob"]).manual_score = 2.0
        gradebook.find_comment("stable_softplus", ID, ID, name["bob"]).manual_comment = COMMENT
        gradebook.db.commit()
    final = {name[w]: s for w, s in {**JUDGED, "bob": 8.0}.items()}

    done = run_cli(*grade, timeout=900)  # runs nothing: pages, CSV and summary from the gradebook
    assert done.returncode == 0 and "kept" in done.stdout, done.stdout + done.stderr
    instructor("generate_feedback", ID, "--force", course=course, exchange=exchange)
    released = instructor("release_feedback", ID, course=course, exchange=exchange)
    assert "shared OS account" not in released.stderr  # not the in-course exchange: no warning
    assert "-tmp.html" not in released.stderr and "Feedback released to: " in released.stderr  # the page, not nbgrader's temporary copy

    # Each fetches their own page only.
    accounts.each(lambda who: accounts.run(who, "nbgrader", "fetch_feedback", ID, *student_flags))
    for who in WORK:
        found = list((accounts.home(who) / ID / "feedback").rglob("*.html"))
        assert len(found) == 1, (who, found)
        pages[who] = found[0].read_text()
        assert f"feedback for {name[who]}" in pages[who]
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

    check_manual_grades_reach_everything(course, base, pages, final, summary_before)
    assert noise(SAID) == [], "\n".join(noise(SAID))


def table(course: Path) -> dict:
    with (course / "grading" / ID / "grades.csv").open() as file:
        return {row["student"]: float(row["score"]) for row in csv.DictReader(file)}


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
    assert table(course) == final
    assert (course / "grading" / ID / "summary.png").read_bytes() != summary_before  # bob's total moved


# ------------------------------------------------------------------ the exchange, attacked

GOOD = {"double": "def double(x):\n    return x + x", "triple": "def triple(x):\n    return 3 * x"}


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
        owner, nb = path.stat(), nbformat.read(path, as_version=4)
        for cell in nb.cells:
            cell.source = answers.get(cell.metadata.get("nbgrader", {}).get("grade_id"), cell.source)
        nbformat.write(nb, path)
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
