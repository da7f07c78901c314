"""A class on JupyterHub (README, "A class on JupyterHub"), with real accounts and a real browser.

hub/setup.py starts a JupyterHub on a free port in a temporary base folder: PAM logins, students'
servers from the learners' venv (built from the kit, cached by learner_env), each in a capped
cgroup, and the course's Formgrader as the hub service `finite`, run by a grader account that owns
the course. The grader presses Generate and Release in the Formgrader and finds
it in the service lab's Formgrader tab; alice, bob and carol log in through the hub's login page in
Chromium, fetch in the Assignments tab, press Validate (alice's answers pass their visible checks,
the others' do not) and submit there; carol's endless loops, a file past her file cap and an
allocation past her memory cap stop in her server only (the last kills her kernel). The grader
presses the Formgrader's Collect; its Autograde (not root) refuses to grade uncapped; root grades
(`hub/setup.py grade`), the Formgrader shows the judged scores, the grader types a score and a
comment on Manual Grading's page and presses Generate and Release Feedback, and each student
fetches only their own page with the tab's Fetch Feedback. Screenshots and the cell times in artifacts/hub/.
"""
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from autograder.course import Course
from conftest import ROOT, run_cli
from learner_env import learner_venv, pip, system_python
from browsing import CHROMIUM, validate  # the headless Chromium fixture, browser, is tests/conftest.py's
from autograder.term import BY_HAND, ID, WORK, fill
from helpers import TERM_JUDGED as JUDGED

COMMENT = BY_HAND[-1]

sys.path.insert(0, str(ROOT / "hub"))
import setup as hub_setup  # noqa: E402  (hub/setup.py)

ARTIFACTS = ROOT / "artifacts" / "hub"
PASSWORD = "Finite-hub-test-1"
MEMORY_MB, CPUS, FILE_MB = 1024, 1.0, 64  # each student's server, here (the defaults: 2048 MB, 1 core, 1024 MB)
pytestmark = pytest.mark.slow


def why_not_here() -> str:
    if os.geteuid() != 0:
        return "needs root: it creates OS accounts and starts a JupyterHub that logs them in with PAM"
    missing = [t for t in ("useradd", "userdel", "chpasswd", "groupadd", "npm", "bwrap") if shutil.which(t) is None]
    if missing:
        return f"needs {', '.join(missing)} (npm: the hub's configurable-http-proxy; bwrap: grading)"
    if not Path("/etc/pam.d/login").is_file():
        return "no PAM service `login` (/etc/pam.d/login): the hub logs accounts in with it"
    if CHROMIUM is None:
        return "chromium is not installed; `make test` installs it"
    return system_python()


def free_ports() -> int:
    """A port p with p, p+1, p+2 and p+10 free (the hub, its API, the proxy's API, the service)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port < 65000 and not any(hub_setup.port_in_use("127.0.0.1", port + k) for k in (0, 1, 2, 10)):
            return port
    raise RuntimeError("no free ports")


def instructor_env() -> tuple:
    """(instructor venv, proxy command), built by hub/setup.py once per pyproject.toml and kept (as
    learner_env keeps the learners'); the course's package reinstalled on every call."""
    folder = Path(os.environ.get("FINITE_TEST_VENVS", "/opt/finite-test"))
    folder.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        prefix = folder / f"hub-{key}"
        fresh = not (prefix / "instructor" / ".installed").is_file()
        prefix.mkdir(exist_ok=True)
        prefix.chmod(0o755)
        venv = hub_setup.instructor_venv(prefix)
        if not fresh:
            pip(venv, "--no-deps", "--force-reinstall", ROOT)
            subprocess.run(["chmod", "-R", "a+rX", venv], check=True)
        proxy = hub_setup.proxy(folder / f"hub-proxy-{hub_setup.PROXY_VERSION}")
    return venv, proxy


def useradd(name: str, home_root: Path, password: str = "") -> None:
    subprocess.run(["useradd", "--create-home", "--home-dir", home_root / name, "-K", "HOME_MODE=0700",
                    "--shell", "/bin/bash", name], check=True, capture_output=True)
    if password:
        subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True, capture_output=True)


class Hub:
    def __init__(self, base: Path):
        self.base = base
        self.suffix = base.name.rsplit("-", 1)[-1][:5].lower().replace("_", "x")
        self.accounts, self.groups = [], []
        self.hub = base / "hub"
        self.course = base / "course"
        self.exchange = base / "exchange"
        self.port = 0

    def name(self, who: str) -> str:
        return f"{who}-{self.suffix}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def setup(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, ROOT / "hub" / "setup.py", "--base", self.hub, *map(str, args)],
                              capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def hub():
    """A running hub: its course (02 only), grader `grader-X`, teacher `teach-X`, students from a roster."""
    base = Path(tempfile.mkdtemp(prefix="finite-hub-"))
    base.chmod(0o755)
    state = Hub(base)
    existing = {g for g in ("nbgrader-finite", "formgrade-finite") if hub_setup.group_exists(g)}
    try:
        done = run_cli("kit", str(base / "kit"), timeout=600)
        assert done.returncode == 0, done.stderr
        learner = learner_venv(base / "kit")
        instructor, proxy = instructor_env()
        Course(ROOT).copy_to(state.course, [ID])
        (base / "home").mkdir(mode=0o755)
        state.accounts += [state.name("grader"), state.name("teach")]
        useradd(state.name("teach"), base / "home", PASSWORD)
        state.port = free_ports()
        started = state.setup("start", "--port", state.port, "--memory-mb", MEMORY_MB, "--cpus", CPUS, "--file-mb", FILE_MB,
                              "--learner-venv", learner, "--instructor-venv", instructor, "--proxy", proxy,
                              "--exchange", state.exchange, "--course", state.course, "--grader",
                              state.name("grader"), "--graders", state.name("teach"), "--home-root", base / "home")
        state.groups = [g for g in ("nbgrader-finite", "formgrade-finite") if g not in existing]
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"JupyterHub is running at {state.url}/" in started.stdout, started.stdout
        yield state
    finally:
        state.setup("stop")
        for name in state.accounts:
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)
        for group in state.groups:
            subprocess.run(["groupdel", group], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


# JavaScript run in a logged-in page: a request with the page's cookies and its _xsrf token, and one
# cell run on a kernel through the server's websocket (what JupyterLab does), timed.
REQUEST = """async ([method, url, form, json]) => {
  const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || "";
  const body = json ? JSON.stringify(json) : form ? new URLSearchParams(form) : undefined;
  const r = await fetch(url, {method, body, headers: {"X-XSRFToken": decodeURIComponent(xsrf)}});
  return {status: r.status, text: await r.text()};
}"""
RUN_CELL = """async ([base, kernel, code, timeout]) => {
  const ws = new WebSocket(base.replace(/^http/, "ws") + "api/kernels/" + kernel + "/channels");
  await new Promise((ok, no) => { ws.onopen = ok; ws.onerror = no; });
  const id = Math.random().toString(36).slice(2);
  const started = performance.now();
  const out = [];
  const result = await new Promise(done => {
    const timer = setTimeout(() => done("timeout"), timeout);
    ws.onclose = () => done("closed");
    ws.onmessage = event => {
      const msg = JSON.parse(event.data);
      if (msg.msg_type === "status" && ["restarting", "dead"].includes(msg.content.execution_state)) {
        clearTimeout(timer); done("died"); }
      if (msg.parent_header.msg_id !== id) return;
      if (msg.msg_type === "stream") out.push(msg.content.text);
      if (msg.msg_type === "error") out.push(msg.content.ename + ": " + msg.content.evalue);
      if (msg.msg_type === "execute_reply") { clearTimeout(timer); done(msg.content.status); }
    };
    ws.send(JSON.stringify({channel: "shell", header: {msg_id: id, msg_type: "execute_request", session: id,
      username: "", version: "5.3", date: new Date().toISOString()}, parent_header: {}, metadata: {},
      content: {code, silent: false, store_history: false, user_expressions: {}, allow_stdin: false}}));
  });
  ws.close();
  return {result, ms: performance.now() - started, out: out.join("")};
}"""


def login(browser, hub, who: str, then: str = ""):
    """A page logged in as ``who`` through the hub's login page (PAM), on the page the hub lands on
    (the student's lab), or on ``then``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{hub.url}/hub/login" + (f"?next={then}" if then else ""), wait_until="domcontentloaded")
    page.fill("#username_input", hub.name(who))
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    return page


def menu(page, item: str) -> None:
    """Nbgrader > ``item`` in a lab's menu bar."""
    page.click(".lm-MenuBar-itemLabel:text-is('Nbgrader')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


def press(page, column: str, says: str, screenshot: str = "") -> None:
    """Manage Assignments: the button in ``column`` of the assignment's row, then its dialog's answer."""
    page.click(f"tr:has-text('{ID}') td.{column} a", timeout=60_000)
    page.wait_for_selector(f".modal-dialog >> text={says}", timeout=180_000)
    if screenshot:
        shoot(page, screenshot)
    page.click(".modal-dialog button[data-dismiss='modal']")
    page.wait_for_selector(".modal-dialog", state="hidden")


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def request(page, method: str, url: str, form=None, body=None) -> dict:
    return page.evaluate(REQUEST, [method, url, form, body])


def cell(page, base: str, kernel: str, code: str, timeout_ms: int = 60_000) -> dict:
    return page.evaluate(RUN_CELL, [base, kernel, code, timeout_ms])


def cgroups(hub, who: str) -> dict:
    """{"memory"/"cpu": (cgroup version, folder)} of ``who``'s server (their oldest process)."""
    from autograder.sandbox.probe import _join, _mounts

    pid = subprocess.run(["pgrep", "-o", "-u", hub.name(who)], capture_output=True, text=True).stdout.split()[0]
    found = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():  # v1 lines first, v2's ("0::") last
        _, controllers, path = line.split(":", 2)
        for point, root, fstype, options in _mounts():
            if fstype == "cgroup" and controllers and set(controllers.split(",")) <= options:
                for controller in {"memory", "cpu"} & set(controllers.split(",")):
                    found.setdefault(controller, (1, _join(point, root, path)))
            elif fstype == "cgroup2" and not controllers:
                for controller in ("memory", "cpu"):
                    found.setdefault(controller, (2, _join(point, root, path)))
    return found


def cgroup_file(hub, who: str, v1: str, v2: str) -> Path:
    version, folder = cgroups(hub, who)[v1.split(".")[0]]
    return folder / (v1 if version == 1 else v2)


def counted(path: Path, key: str) -> int:
    return int(next(line.split()[1] for line in path.read_text().splitlines() if line.startswith(f"{key} ")))


SPIN = ("import subprocess, sys\n"
        "spinners = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(4)]\n"
        "print(len(spinners), 'spinners')")
BIG = f"import os\ntry:\n    open('big.bin', 'wb').write(b'x' * {2 * FILE_MB} * 2**20)\nfinally:\n    os.remove('big.bin')"
HOG = "hog = []\nwhile True:\n    hog.append(b'x' * 2**26)"
WORKLOAD = "sum(i * i for i in range(2_000_000))"


@pytest.mark.skipif(bool(why_not_here()), reason=why_not_here() or "runs here")
def test_a_class_on_jupyterhub(hub, browser):
    course_url = f"{hub.url}/services/finite/formgrader"
    name = {who: hub.name(who) for who in WORK}

    # make hub again: it is running, nothing changes; another base on the same port: one line naming it.
    again = hub.setup("start", "--port", hub.port)
    assert again.returncode == 0 and "nothing changed" in again.stdout, again.stdout + again.stderr
    clash = subprocess.run([sys.executable, ROOT / "hub" / "setup.py", "--base", hub.base / "other", "start",
                            "--port", str(hub.port)], capture_output=True, text=True)
    assert clash.returncode == 1 and clash.stderr.strip() == (
        f"port {hub.port} on 127.0.0.1 is in use: pick another with --port (make hub HUB_PORT=...); the hub "
        f"takes {hub.port} to {hub.port + 2} and {hub.port + 10}"), clash.stderr

    # Students from a roster (one invalid name: one line naming it, the others created), passwords set.
    roster = hub.base / "roster.csv"
    roster.write_text("id,first_name\n" + "".join(f"{n},{w}\n" for w, n in name.items()) + "Bad Name,x\n")
    hub.accounts += list(name.values())
    made = hub.setup("users", roster, "--home-root", hub.base / "home")
    assert made.returncode == 1 and "3 account(s) created" in made.stdout, made.stdout + made.stderr
    assert made.stderr.strip().splitlines() == [
        f"{roster}: 'Bad Name' is not a valid user name (lower-case letters, digits, _ and -, 32 at most, "
        "not starting with a digit or -): not created"]
    again = hub.setup("users", roster, "--home-root", hub.base / "home")
    assert "0 account(s) created, 3 already there" in again.stdout, again.stdout
    subprocess.run(["chpasswd"], input="".join(f"{n}:{PASSWORD}\n" for n in name.values()), text=True, check=True)
    for who in WORK:
        assert oct((hub.base / "home" / name[who]).stat().st_mode & 0o777) == "0o700"
    assert oct(hub.course.stat().st_mode & 0o777) == "0o700" and hub.course.owner() == hub.name("grader")
    assert oct(hub.exchange.stat().st_mode & 0o7777) == "0o1777"

    # The grader: the Formgrader service from the hub's services menu, not blank; release through it.
    teach = login(browser, hub, "teach", "/hub/home")
    teach.wait_for_url("**/hub/home", timeout=60_000)
    teach.click("text=Services")
    teach.click("a.dropdown-item:has-text('finite')")
    teach.wait_for_url("**/services/finite/formgrader**", timeout=60_000)
    teach.wait_for_selector("text=Manage Assignments", timeout=60_000)
    press(teach, "assign", f"Successfully created the student version of '{ID}'")
    press(teach, "release", f"Successfully released '{ID}'")
    teach.reload()  # released (the grader account is in the course's groups)
    teach.wait_for_selector(f"tr:has-text('{ID}') >> text=released", timeout=60_000)
    shoot(teach, "1-formgrader-released")
    assert (hub.exchange / "finite" / "outbound" / ID / f"{ID}.ipynb").is_file()
    # the service's lab: its Formgrader tab frames the same page, not blank; students' servers keep 'none'
    teach.goto(f"{hub.url}/services/finite/lab", wait_until="domcontentloaded")
    teach.wait_for_selector(".jp-LabShell", timeout=60_000)
    menu(teach, "Formgrader")
    teach.frame_locator("#formgrader-iframe iframe").locator(f"td >> text={ID}").wait_for(timeout=60_000)
    shoot(teach, "1b-formgrader-tab")
    teach.goto(course_url, wait_until="domcontentloaded")
    teach.wait_for_selector("text=Manage Assignments", timeout=60_000)

    # Each student: the login page, their lab, the Assignments tab lists 02 and fetches it; work; submit.
    pages, lab = {}, {}
    for who in WORK:
        page = login(browser, hub, who)
        page.wait_for_url(f"**/user/{name[who]}/lab**", timeout=90_000)
        page.wait_for_selector(".jp-LabShell", timeout=60_000)
        lab[who] = f"{hub.url}/user/{name[who]}/"
        menu(page, "Assignment List")
        page.wait_for_selector(f"#released_assignments_list >> text={ID}", timeout=60_000)
        shoot(page, f"2-{who}-assignments-tab")
        page.click("#released_assignments_list button:has-text('Fetch')")
        page.wait_for_selector(f"#fetched_assignments_list >> text={ID}", timeout=60_000)
        pages[who] = page
    shoot(pages["alice"], "3-alice-fetched")
    fetched_nb = {who: hub.base / "home" / name[who] / ID / f"{ID}.ipynb" for who in WORK}
    mine = Course(ROOT)  # the cases the answers come from
    for who in WORK:
        fill(fetched_nb[who], who, mine)
    for who in WORK:  # Validate, in each one's own server, under their caps, in the course's words
        pages[who].goto(f"{lab[who]}lab/tree/{ID}/{ID}.ipynb")
        pages[who].wait_for_selector(".jp-Notebook", timeout=60_000)
        said = validate(pages[who])
        passing, exercises = map(int, re.search(r"(\d+) of (\d+) exercises pass their visible checks", said).groups())
        assert (passing == exercises) == (who == "alice") and "That is not a score" in said, (who, said)
    shoot(pages["alice"], "4-alice-notebook")
    for who in WORK:
        menu(pages[who], "Assignment List")
        pages[who].click("#fetched_assignments_list button:has-text('Submit')")
        pages[who].wait_for_selector(f"#submitted_assignments_list >> text={ID}", timeout=60_000)
    shoot(pages["carol"], "4b-carol-submitted")

    # Caps: carol's endless loops (4 busy processes) and her allocation past her cap stay in her
    # server's cgroup; the allocation kills her kernel only.
    kernels = {}
    for who in ("alice", "carol"):
        made = request(pages[who], "POST", f"{lab[who]}api/kernels", None)
        kernels[who] = json.loads(made["text"])["id"]
        assert cell(pages[who], lab[who], kernels[who], "1")["result"] == "ok"
    cell(pages["alice"], lab["alice"], kernels["alice"], WORKLOAD)
    def alice_ms():  # her cell's time, the median of three
        return statistics.median(cell(pages["alice"], lab["alice"], kernels["alice"], WORKLOAD)["ms"] for _ in range(3))

    alone = alice_ms()
    spun = cell(pages["carol"], lab["carol"], kernels["carol"], SPIN)
    assert spun["result"] == "ok", spun
    quota = cgroup_file(hub, "carol", "cpu.cfs_quota_us", "cpu.max")
    capped = quota.read_text()
    assert capped.split()[0] == str(int(CPUS * 100_000))
    assert int(cgroup_file(hub, "carol", "memory.limit_in_bytes", "memory.max").read_text()) == MEMORY_MB * 2**20
    assert len((quota.parent / "cgroup.procs").read_text().split()) >= 6  # her server, kernel, 4 loops: capped
    time.sleep(2)
    beside = alice_ms()
    # the same with carol's CPU cap lifted for a moment: what the cap spares alice
    quota.write_text("-1\n" if quota.name == "cpu.cfs_quota_us" else "max 100000\n")
    try:
        time.sleep(1)
        uncapped = alice_ms()
    finally:
        quota.write_text(capped)
    big = cell(pages["carol"], lab["carol"], kernels["carol"], BIG)  # a file past her server's file cap
    assert big["result"] == "error" and "File too large" in big["out"], big
    assert cell(pages["carol"], lab["carol"], kernels["carol"], "1")["result"] == "ok"
    hog = cell(pages["carol"], lab["carol"], kernels["carol"], HOG, 120_000)
    assert hog["result"] in ("died", "closed"), hog
    assert counted(cgroup_file(hub, "carol", "memory.oom_control", "memory.events"), "oom_kill") >= 1
    after = cell(pages["alice"], lab["alice"], kernels["alice"], WORKLOAD)
    assert after["result"] == "ok", after
    assert urllib.request.urlopen(f"{hub.url}/hub/api", timeout=10).status == 200
    # The cell times are a measurement, not a check: `make test` runs other tests beside this one.
    figures = {"alice_cell_ms_alone": alone, "alice_cell_ms_beside_carol_looping": beside,
               "alice_cell_ms_beside_carol_looping_uncapped": uncapped, "alice_cell_ms_after_carol_killed": after["ms"],
               "memory_mb": MEMORY_MB, "cpus": CPUS}
    (ARTIFACTS / "caps.json").write_text(json.dumps(figures, indent=1))

    # The grader presses the Formgrader's Collect; its Autograde, not root, refuses to grade uncapped.
    teach.goto(course_url, wait_until="domcontentloaded")
    press(teach, "collect", f"Successfully collected submissions of '{ID}'", "4c-formgrader-collected")
    for who in WORK:
        assert (hub.course / "submitted" / name[who] / ID / f"{ID}.ipynb").is_file()
    refused = request(teach, "POST", f"{course_url}/api/submission/{ID}/{name['alice']}/autograde")
    refused = json.loads(refused["text"])
    assert not refused["success"] and "cannot be enforced" in refused["log"] + refused.get("error", ""), refused

    # Root grades, capped (README), and the Formgrader shows the judged scores.
    graded = hub.setup("grade", ID, "--workers", "2")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert hub.course.owner() == hub.name("grader") and (hub.course / "gradebook.db").owner() == hub.name("grader")
    submissions = json.loads(request(teach, "GET", f"{course_url}/api/submissions/{ID}")["text"])
    assert {s["student"]: s["score"] for s in submissions} == {name[w]: s for w, s in JUDGED.items()}
    teach.goto(f"{course_url}/manage_submissions/{ID}")
    teach.wait_for_selector(f"text={name['alice']}", timeout=30_000)
    shoot(teach, "5-formgrader-submissions")

    # A score and a comment by hand in the Formgrader; its Generate and Release Feedback; each
    # student fetches only their own page, with the score set by hand.
    api = f"{course_url}/api"
    bob = next(s for s in json.loads(request(teach, "GET", f"{api}/submitted_notebooks/{ID}/{ID}")["text"])
               if s["student"] == name["bob"])
    teach.goto(f"{course_url}/submissions/{bob['id']}/", wait_until="domcontentloaded")  # Manual Grading's page
    # its fields are bound once it has loaded the grades and comments (a value typed before is overwritten)
    teach.wait_for_function("window.formgrader && formgrader.grades.loaded && formgrader.comments.loaded",
                            timeout=60_000)
    for field, value in (("#test_stable_softplus", "2"), ("#stable_softplus-comment", COMMENT)):
        teach.fill(field, value, timeout=60_000)
        teach.press(field, "Tab")  # the page saves a field when it changes
    shoot(teach, "5a-formgrader-by-hand")

    def saved():
        grades = json.loads(request(teach, "GET", f"{api}/grades?submission_id={bob['id']}")["text"])
        comments = json.loads(request(teach, "GET", f"{api}/comments?submission_id={bob['id']}")["text"])
        return (next(g["manual_score"] for g in grades if g["name"] == "test_stable_softplus"),
                next(c["manual_comment"] for c in comments if c["name"] == "stable_softplus"))

    deadline = time.monotonic() + 30
    while saved() != (2.0, COMMENT) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert saved() == (2.0, COMMENT)
    teach.goto(course_url, wait_until="domcontentloaded")
    press(teach, "generate-feedback", f"Successfully generated feedback of '{ID}'")
    press(teach, "release-feedback", f"Successfully released feedback of '{ID}'", "5b-formgrader-feedback-released")
    final, texts = {**JUDGED, "bob": 8.0}, {}
    for who in WORK:  # the Assignments tab's Fetch Feedback
        menu(pages[who], "Assignment List")
        pages[who].click("#submitted_assignments_list button:has-text('Fetch Feedback')")
        pages[who].wait_for_selector("#submitted_assignments_list >> text=(view feedback)", timeout=60_000)
        found = list((hub.base / "home" / name[who] / ID / "feedback").rglob("*.html"))
        assert len(found) == 1, (who, found)
        texts[who] = text = found[0].read_text()
        assert f"feedback for {name[who]}" in text and f"Score:</strong> {final[who]:g} / 12" in text, who
        assert not any(name[other] in text for other in WORK if other != who)
    assert COMMENT in texts["bob"] and "2 / 3 (graded by hand)" in texts["bob"]
    pages["bob"].goto(f"{lab['bob']}lab/tree/{ID}/feedback")
    pages["bob"].wait_for_selector(".jp-DirListing-item", timeout=30_000)
    shoot(pages["bob"], "6-bob-feedback")
