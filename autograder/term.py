"""A term on throwaway OS accounts: the README's "A term, end to end" as one checked run.

Run as root on the server a class will use (``python -m autograder term --learner-env VENV``):
three accounts with homes of 700 fetch 02 from an exchange outside the course, fill it with
answers from the self-check cases (one right, one half right, one wrong), submit; the instructor
collects, grades, sets one score and comment by hand, generates and releases feedback; each
student fetches their own page. Every step prints what it did; the first that fails stops the run
with what its command printed. The accounts and the folder are removed at the end unless --keep.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.cases import Case, build_submission
from autograder.course import Course, answer_cells, nbgrader as course_nbgrader

ID = "02_norm_overflow"
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
BY_HAND = ("bob", "test_stable_softplus", "stable_softplus", 2.0,
           "Close: the max shift is right, but log1p(exp(x)) still overflows past x = 88. Two of three by hand.")


class TermError(Exception):
    """A step of the term failed; the message holds its command's output."""


def nbgrader(*args, cwd, said: list, **env) -> subprocess.CompletedProcess:
    """An nbgrader command in ``cwd`` (:func:`autograder.course.nbgrader`), with this process's
    environment but FINITE_EXCHANGE, and ``env`` added; what it printed is appended to ``said``."""
    environ = {**{k: v for k, v in os.environ.items() if k != "FINITE_EXCHANGE"}, **env}
    done = course_nbgrader(list(args), cwd, timeout=300, check=False, environ=environ)
    said.append(done.stdout + done.stderr)
    return done


def instructor(*args, course: Path, exchange: Path, said: list) -> subprocess.CompletedProcess:
    """An nbgrader command the instructor runs in the course, the exchange named by FINITE_EXCHANGE;
    TermError when it fails."""
    done = nbgrader(*args, cwd=course, said=said, FINITE_EXCHANGE=str(exchange))
    if done.returncode:
        raise TermError(f"nbgrader {' '.join(args)} exited {done.returncode}\n{done.stdout}{done.stderr}")
    return done


class Accounts:
    """Real OS accounts with homes of 700 under ``base``/home, named ``<who>_<suffix>``."""

    def __init__(self, base: Path, venv: Path, said: list):
        self.base, self.venv, self.said = base, venv, said
        self.suffix = base.name.rsplit("-", 1)[-1][:6].lower()
        self.created = []

    def name(self, who: str) -> str:
        return f"{who}_{self.suffix}"

    def home(self, who: str) -> Path:
        return self.base / "home" / self.name(who)

    def create(self, who: str) -> None:
        if self.name(who) in self.created:
            return
        (self.base / "home").mkdir(mode=0o755, exist_ok=True)
        subprocess.run(["useradd", "--create-home", "--home-dir", self.home(who), "-K", "HOME_MODE=0700",
                        "--shell", "/bin/sh", self.name(who)], check=True, capture_output=True)
        self.created.append(self.name(who))

    def run(self, who: str, *argv, check=True, timeout=600) -> subprocess.CompletedProcess:
        """``argv`` as that account, in its home, with the learners' venv first on PATH."""
        env = ["env", "-i", f"HOME={self.home(who)}", f"USER={self.name(who)}", f"LOGNAME={self.name(who)}",
               f"PATH={self.venv / 'bin'}:/usr/bin:/bin", "LANG=C.UTF-8"]
        done = subprocess.run(["runuser", "-u", self.name(who), "--", *env, *map(str, argv)], cwd=self.home(who),
                              capture_output=True, text=True, timeout=timeout)
        self.said.append(done.stdout + done.stderr)
        if check and done.returncode:
            raise TermError(f"{who}: {' '.join(map(str, argv))} exited {done.returncode}\n{done.stdout}{done.stderr}")
        return done

    def each(self, step) -> dict:
        """``step(who)`` for every student at once, as a class would."""
        with ThreadPoolExecutor(len(WORK)) as pool:
            return dict(zip(WORK, pool.map(step, WORK)))

    def remove(self) -> None:
        for name in self.created:
            subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)


@dataclass
class Term:
    """What a term left: its folders, its accounts, and what each step produced."""

    accounts: Accounts  # its base folder holds the term; its said, what every command printed
    course: Path = None
    exchange: Path = None
    judged: dict = field(default_factory=dict)  # {account: score} after the first grade
    final: dict = field(default_factory=dict)  # {account: score} after the score by hand
    pages: dict = field(default_factory=dict)  # {who: the feedback page they fetched}
    summary_before: bytes = b""  # summary.png before the score by hand


def run_term(root: Path, accounts: Accounts, say=print) -> Term:
    """The term in ``accounts.base`` (the caller removes it and the accounts), the course copied from
    ``root``, the students working in ``accounts.venv`` (the kit installed, readable by every account)."""
    base, said = accounts.base, accounts.said
    term = Term(accounts)
    for who in WORK:
        term.accounts.create(who)
    name = {who: term.accounts.name(who) for who in WORK}
    say(f"accounts: {', '.join(name.values())}, homes 700 under {base / 'home'}")

    term.course = Course(root).copy_to(base / "course", [ID]).resolve()
    term.course.chmod(0o700)
    term.exchange = base / "exchange"
    term.exchange.mkdir()
    term.exchange.chmod(0o1777)
    course, exchange = term.course, term.exchange
    where = {"course": course, "exchange": exchange, "said": said}

    instructor("generate_assignment", ID, "--force", **where)
    instructor("release_assignment", ID, **where)
    say(f"release: {ID} in {exchange / 'finite' / 'outbound' / ID} (course {course}, 700)")

    student_flags = ["--course", "finite", f"--Exchange.root={exchange}"]
    term.accounts.each(lambda who: term.accounts.run(who, "nbgrader", "fetch_assignment", ID, *student_flags))
    for who in WORK:
        fill(term.accounts.home(who) / ID / f"{ID}.ipynb", who, Course(root))
    term.accounts.each(lambda who: term.accounts.run(who, "nbgrader", "submit", ID, *student_flags))
    say(f"fetch, work, submit: each student as themselves ({', '.join(WORK)})")

    collected = instructor("collect", ID, **where)
    say(f"collect: {len(list((course / 'submitted').iterdir()))} submissions in {course / 'submitted'}"
        + (" (lines to read: " + collected.stderr.strip().replace("\n", "; ")[:300] + ")" if "WARNING" in collected.stderr else ""))

    grade = [sys.executable, "-m", "autograder", "--course", str(course), "grade", str(course / "submitted"),
             "--assignment", ID, "--out", str(course / "grading" / ID), "--workers", "2"]

    def graded():
        done = subprocess.run(grade, capture_output=True, text=True, timeout=900)
        said.append(done.stdout + done.stderr)
        if done.returncode:
            raise TermError(f"grade exited {done.returncode}\n{done.stdout}{done.stderr}")
        return scores(course), done.stdout

    term.judged, _ = graded()
    term.summary_before = (course / "grading" / ID / "summary.png").read_bytes()
    say(f"grade: {term.judged}")

    from nbgrader.api import Gradebook  # the instructor's environment has nbgrader; a learner's does not matter here

    who, test, answer, points, comment = BY_HAND
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.find_grade(test, ID, ID, name[who]).manual_score = points
        gradebook.find_comment(answer, ID, ID, name[who]).manual_comment = comment
        gradebook.db.commit()
    term.final, printed = graded()  # runs nothing: pages, CSV and summary from the gradebook
    ran = "ran nothing, rewrote the pages, CSV and summary" if "kept" in printed else "graded again"
    say(f"by hand: {name[who]} {test} = {points:g}, with a comment; grade again {ran}: {term.final}")

    instructor("generate_feedback", ID, "--force", **where)
    instructor("release_feedback", ID, **where)
    term.accounts.each(lambda who: term.accounts.run(who, "nbgrader", "fetch_feedback", ID, *student_flags))
    for who in WORK:
        found = list((term.accounts.home(who) / ID / "feedback").rglob("*.html"))
        if len(found) != 1:
            raise TermError(f"{who} fetched {len(found)} feedback pages, not 1: {found}")
        term.pages[who] = found[0].read_text()
        if f"feedback for {name[who]}" not in term.pages[who]:
            raise TermError(f"{who}'s page is not theirs")
    say("feedback: generated, released, and each student fetched their own page")
    return term


def fill(notebook: Path, who: str, course: Course) -> None:
    """The student's answers from ``course``'s cases, written into their fetched notebook (still theirs)."""
    cases = {case.split("--")[0]: (course.root / "cases" / ID / f"{case}.py").read_text() for case in WORK[who]}
    owner = notebook.stat()
    nb = build_submission(nbformat.read(notebook, as_version=4), answer_cells(course.source_notebook(ID)),
                          Case(who, cases))
    nbformat.write(nb, notebook)
    os.chown(notebook, owner.st_uid, owner.st_gid)


def scores(course: Path) -> dict:
    """{student: score} from grading/ID/grades.csv."""
    with (course / "grading" / ID / "grades.csv").open() as file:
        return {row["student"]: float(row["score"]) for row in csv.DictReader(file)}


def main(root: Path, venv: Path, keep: bool) -> int:
    """The CLI's ``term``: run it, print each step, clean up; 0 when every step worked."""
    if os.geteuid() != 0:
        print("term: run as root: it creates OS accounts (useradd) and acts as each (runuser)", file=sys.stderr)
        return 2
    if not (venv / "bin" / "nbgrader").is_file():
        print(f"term: {venv} is not a learners' environment (no bin/nbgrader): build one from the kit as "
              "'A class on one server' says", file=sys.stderr)
        return 2
    base = Path(tempfile.mkdtemp(prefix="finite-term-"))
    base.chmod(0o755)
    accounts = Accounts(base, venv, [])
    try:
        run_term(root, accounts, say=lambda line: print(line, flush=True))
        print("the term worked: every step above")
        return 0
    except (TermError, subprocess.SubprocessError, OSError) as error:
        print(f"term: a step failed:\n{error}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"kept: {base} and the accounts {', '.join(accounts.created)}", file=sys.stderr)
        else:
            accounts.remove()
            shutil.rmtree(base, ignore_errors=True)
