"""Set up and start the course's JupyterHub on this server (README, "A class on JupyterHub").

    python hub/setup.py start [--port 8000] ...   install what is missing, set up, start (`make hub`)
    python hub/setup.py users ROSTER.csv          student accounts from a roster (`make hub-users`)
    python hub/setup.py grade ID                  grade as root, capped (`make hub-grade ID=...`)
    python hub/setup.py stop | status             (`make hub-stop`, `make hub-status`)

Run as root with the course's Python (it builds the learner kit with `python -m autograder kit`).
What it installs (pinned: the course's pyproject.toml; the proxy: PROXY_VERSION) goes under
--prefix; the hub's configuration and state under --base. Each step is skipped when already done,
so a second run changes nothing.
"""
import argparse
import csv
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HUB_FILES = ("jupyterhub_config.py", "finite_hub.py")
PROXY_VERSION = "5.3.0"  # configurable-http-proxy, from npm
SYSTEM_PYTHON = "/usr/bin/python3"
DEFAULTS = {"ip": "127.0.0.1", "port": 8000, "memory_mb": 2048, "max_procs": 256, "cpus": 1.0, "file_mb": 1024}
ACCOUNT = re.compile(r"[a-z_][a-z0-9_-]{0,31}\Z")  # Debian's useradd default (NAME_REGEX)


def say(line):
    print(line, flush=True)


def fail(line):
    print(line, file=sys.stderr, flush=True)
    sys.exit(1)


def run(*argv, **kwargs):
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    if done.returncode:
        fail(f"{' '.join(map(str, argv))} failed: {(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


def umask022():
    os.umask(0o022)


# --- what is running ----------------------------------------------------------------------------

def running_pid(base: Path):
    """The hub's pid when a hub of this base runs, else None."""
    try:
        pid = int((base / "state" / "jupyterhub.pid").read_text().split()[0])
        os.kill(pid, 0)
        return pid if b"jupyterhub" in Path(f"/proc/{pid}/cmdline").read_bytes() else None
    except (OSError, ValueError, IndexError):
        return None


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie no longer does: PID 1 here may never reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def port_in_use(ip: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((ip, port))
        except OSError:
            return True
    return False


def url_of(settings):
    return f"http://{settings['ip']}:{settings['port']}/"


# --- environments ---------------------------------------------------------------------------------

def learner_venv(prefix: Path) -> Path:
    """The learners' venv: the kit (never source/ or cases/), with the system Python, outside the homes."""
    venv = prefix / "learner"
    if (venv / ".installed").is_file():
        return venv
    kit = prefix / "kit"
    shutil.rmtree(kit, ignore_errors=True)
    say(f"building the learner kit in {kit}")
    run(sys.executable, "-m", "autograder", "kit", kit, cwd=REPO)
    say(f"installing the learners' environment in {venv} (the kit's pins; a few minutes)")
    shutil.rmtree(venv, ignore_errors=True)
    run(SYSTEM_PYTHON, "-m", "venv", venv, preexec_fn=umask022)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", kit, preexec_fn=umask022)
    shutil.copytree(kit / "lab" / "learner", venv / "etc" / "jupyter", dirs_exist_ok=True)
    run("chmod", "-R", "a+rX", venv, kit)
    (venv / ".installed").touch()
    return venv


def instructor_venv(prefix: Path) -> Path:
    """The Formgrader's (and the hub's) venv: the course's package and pins, with the system Python."""
    venv = prefix / "instructor"
    if (venv / ".installed").is_file():
        return venv
    say(f"installing the instructor's environment in {venv} (the course's pins; a few minutes)")
    shutil.rmtree(venv, ignore_errors=True)
    run(SYSTEM_PYTHON, "-m", "venv", venv, preexec_fn=umask022)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", REPO, preexec_fn=umask022)
    run("chmod", "-R", "a+rX", venv)
    (venv / ".installed").touch()
    return venv


def proxy(prefix: Path) -> Path:
    """configurable-http-proxy from npm, pinned."""
    folder = prefix / "proxy"
    command = folder / "node_modules" / ".bin" / "configurable-http-proxy"
    if command.is_file():
        return command
    if not shutil.which("npm"):
        fail("npm is not installed (apt-get install npm): JupyterHub needs configurable-http-proxy from it")
    say(f"installing configurable-http-proxy {PROXY_VERSION} in {folder}")
    folder.mkdir(parents=True, exist_ok=True)
    run("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", folder,
        f"configurable-http-proxy@{PROXY_VERSION}")
    return command


# --- accounts -------------------------------------------------------------------------------------

def account_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def group_exists(name: str) -> bool:
    return subprocess.run(["getent", "group", name], capture_output=True).returncode == 0


def make_account(name: str, home_root: Path) -> bool:
    """An account with a home of 700; False when it was there already (its home made 700)."""
    if account_exists(name):
        home = Path(pwd.getpwnam(name).pw_dir)
        if home.is_dir():
            home.chmod(0o700)
        return False
    run("useradd", "--create-home", "--home-dir", home_root / name, "-K", "HOME_MODE=0700",
        "--shell", "/bin/bash", name)
    return True


def join(name: str, group: str) -> None:
    if not group_exists(group):
        run("groupadd", group)
    run("usermod", "-aG", group, name)


def course_id_of(folder: Path, python: Path) -> str:
    """The course id from the course's own nbgrader_config.py: the one place it is written."""
    code = ("import sys; from traitlets.config.loader import PyFileConfigLoader as L; "
            "print(L('nbgrader_config.py', path=sys.argv[1]).load_config().CourseDirectory.course_id)")
    found = run(python, "-c", code, folder).strip()
    if not ACCOUNT.match(found):
        fail(f"{folder}/nbgrader_config.py: course id {found!r} cannot name a group (nbgrader-{found})")
    return found


def copy_course(folder: Path) -> None:
    """This repository's course (tracked and untracked files, nothing git ignores) into ``folder``."""
    say(f"copying the course into {folder}")
    names = run("git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, names):
        source = REPO / name
        if source.is_file() and not name.startswith("hub/"):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)


# --- start ----------------------------------------------------------------------------------------

def write_config(base: Path, settings: dict, course: dict) -> None:
    for name in ("courses", "learner", "instructor", "state"):
        (base / name).mkdir(parents=True, exist_ok=True)
    base.chmod(0o755)
    (base / "state").chmod(0o700)
    for name in HUB_FILES:
        shutil.copy2(REPO / "hub" / name, base / name)
    shutil.copy2(REPO / "hub" / "service_server_config.py", base / "instructor" / "jupyter_server_config.py")
    shutil.copytree(REPO / "lab" / "instructor", base / "instructor", dirs_exist_ok=True)  # as `make lab-instructor`
    (base / "hub.json").write_text(json.dumps(settings, indent=1) + "\n")
    (base / "courses" / f"{course['id']}.json").write_text(json.dumps(course, indent=1) + "\n")
    plugin = ('import os\nc = get_config()  # noqa: F821\n'
              '# On the hub only: a shell of the same account keeps nbgrader\'s default (no hub to ask)\n'
              'if os.environ.get("JUPYTERHUB_API_TOKEN"):\n'
              '    c.Authenticator.plugin_class = "nbgrader.auth.JupyterHubAuthPlugin"\n')
    (base / "learner" / "nbgrader_config.py").write_text(
        plugin + f'c.Exchange.root = {settings["exchange"]!r}\n')
    (base / "instructor" / "nbgrader_config.py").write_text(plugin)
    for name in ("learner", "instructor", "courses"):
        run("chmod", "-R", "a+rX", base / name)


def start(args) -> None:
    base = Path(args.base).absolute()
    settings_file = base / "hub.json"
    pid = running_pid(base)
    if pid:
        settings = json.loads(settings_file.read_text())
        say(f"JupyterHub is running at {url_of(settings)} (pid {pid}, {base}); nothing changed")
        return
    if os.geteuid() != 0:
        fail("run as root: the hub logs accounts in with PAM and starts their servers as them")
    # the hub's settings: the defaults, what an earlier run chose (hub.json), what this run says
    earlier = json.loads(settings_file.read_text()) if settings_file.is_file() else {}
    settings = {**DEFAULTS, **{k: earlier[k] for k in DEFAULTS if k in earlier},
                **{k: getattr(args, k) for k in DEFAULTS if getattr(args, k) is not None}}
    others = {p.stem: json.loads(p.read_text()) for p in sorted((base / "courses").glob("*.json"))}
    services = [c["port"] for c in others.values()] or [settings["port"] + 10]
    for port in (settings["port"], settings["port"] + 1, settings["port"] + 2, *services):
        if port_in_use(settings["ip"], port):
            fail(f"port {port} on {settings['ip']} is in use: pick another with --port (make hub HUB_PORT=...);"
                 f" the hub takes {settings['port']} to {settings['port'] + 2} and {', '.join(map(str, services))}")
    prefix = Path(args.prefix)
    if not (args.learner_venv and args.instructor_venv and args.proxy):  # something to install there
        prefix.mkdir(parents=True, exist_ok=True)
        prefix.chmod(0o755)
    learner = Path(args.learner_venv) if args.learner_venv else learner_venv(prefix)
    instructor = Path(args.instructor_venv) if args.instructor_venv else instructor_venv(prefix)
    for venv, what in ((learner, "jupyterhub-singleuser"), (instructor, "jupyterhub")):
        if not (venv / "bin" / what).is_file():
            fail(f"{venv} has no {what}: it is not an environment built by this script")
    proxy_command = Path(args.proxy) if args.proxy else proxy(prefix)

    # the exchange outside the course, 1777 (README, "A class on one server")
    exchange = Path(args.exchange)
    exchange.mkdir(parents=True, exist_ok=True)
    exchange.chmod(0o1777)

    # the course: the grader account's alone (700), with its groups
    folder = Path(args.course).absolute()
    home_root = Path(args.home_root)
    home_root.mkdir(parents=True, exist_ok=True)
    course_id = course_id_of(folder if folder.exists() else REPO, instructor / "bin" / "python")
    if course_id in others and others[course_id]["dir"] != str(folder):
        fail(f"course {course_id} is {others[course_id]['dir']} on this hub already: a second course is a copy "
             f"of a course folder with another course id in its nbgrader_config.py ({folder})")
    grader = args.grader or f"grader-{course_id}"
    if make_account(grader, home_root):  # before the copy: the course may go in its home
        say(f"created the grader account {grader} (no password: it never logs in)")
    if not folder.exists():
        copy_course(folder)
    for kind in ("nbgrader", "formgrade"):
        if not group_exists(f"{kind}-{course_id}"):
            run("groupadd", f"{kind}-{course_id}")
    # the grader account in formgrade-ID, as in nbgrader's demo_multiple_classes: the Formgrader lists
    # (as released, with its Collect button) only assignments of a course its own account is in
    join(grader, f"formgrade-{course_id}")
    for teacher in filter(None, args.graders.split(",")):
        if not account_exists(teacher):
            fail(f"grader {teacher!r} has no account: create it first (useradd, passwd)")
        join(teacher, f"formgrade-{course_id}")
    run("chown", "-R", f"{grader}:{grader}", folder)
    folder.chmod(0o700)
    # each course's service its own port: the one it had, else the next after the others'
    port = others[course_id]["port"] if course_id in others else max(
        [settings["port"] + 9, *(c["port"] for c in others.values())]) + 1
    if course_id not in others and port_in_use(settings["ip"], port):
        fail(f"port {port} on {settings['ip']} (the Formgrader service of {course_id}) is in use")
    course = {"id": course_id, "dir": str(folder), "grader": grader, "home": pwd.getpwnam(grader).pw_dir,
              "port": port}

    settings.update(learner_venv=str(learner), instructor_venv=str(instructor), proxy=str(proxy_command),
                    exchange=str(exchange))
    write_config(base, settings, course)
    log = open(base / "state" / "hub.log", "ab")
    env = {"PATH": f"{instructor / 'bin'}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": os.environ.get("HOME", "/root")}
    hub = subprocess.Popen([instructor / "bin" / "jupyterhub", "-f", base / "jupyterhub_config.py"],
                           cwd=base / "state", stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env,
                           start_new_session=True)
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            fail(f"JupyterHub exited ({hub.returncode}): see {base / 'state' / 'hub.log'}")
        try:
            urllib.request.urlopen(url_of(settings) + "hub/api", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        fail(f"JupyterHub did not answer at {url_of(settings)} in {args.wait} s: see {base / 'state' / 'hub.log'}")
    say(f"JupyterHub is running at {url_of(settings)} (pid {hub.pid}, {base}); log {base / 'state' / 'hub.log'}")
    for each in sorted({**others, course_id: course}.values(), key=lambda c: c["id"]):
        say(f"  course {each['id']} in {each['dir']} (owner {each['grader']}): the Formgrader at "
            f"{url_of(settings)}services/{each['id']}/")


def stop(args) -> None:
    base = Path(args.base).absolute()
    pid = running_pid(base)
    if not pid:
        say(f"no JupyterHub of {base} is running")
        return
    os.kill(pid, signal.SIGTERM)  # the hub stops the proxy, its services and the students' servers
    for _ in range(150):
        if not alive(pid):
            break
        time.sleep(0.2)
    else:
        os.kill(pid, signal.SIGKILL)
    settings = json.loads((base / "hub.json").read_text())
    ports = [settings["port"] + k for k in range(3)] + [
        json.loads(p.read_text())["port"] for p in (base / "courses").glob("*.json")]
    for _ in range(100):  # its proxy and services close their ports after it
        if not any(port_in_use(settings["ip"], port) for port in ports):
            break
        time.sleep(0.2)
    say(f"stopped JupyterHub (pid {pid}, {base})")


def status(args) -> None:
    base = Path(args.base).absolute()
    pid = running_pid(base)
    if pid:
        say(f"JupyterHub is running at {url_of(json.loads((base / 'hub.json').read_text()))} (pid {pid}, {base})")
    else:
        say(f"no JupyterHub of {base} is running")


def hub_course(base: Path, course_id) -> dict:
    """The course ``course_id`` of the hub at ``base``; without one, its only course."""
    courses = {c["id"]: c for c in (json.loads(p.read_text()) for p in sorted((base / "courses").glob("*.json")))}
    if course_id in courses or (course_id is None and len(courses) == 1):
        return courses[course_id] if course_id else next(iter(courses.values()))
    fail(f"name the course with --course (the hub at {base} has: {', '.join(courses) or 'none'})")


def users(args) -> None:
    """Accounts (homes 700) in nbgrader-ID for each roster line; one line per name refused."""
    if os.geteuid() != 0:
        fail("run as root: it creates accounts (useradd)")
    course_id = hub_course(Path(args.base).absolute(), args.course)["id"]
    with open(args.roster, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        fail(f"{args.roster} is empty")
    header = [cell.strip().lower() for cell in rows[0]]
    column = next((header.index(k) for k in ("id", "username", "user") if k in header), None)
    names = [row[column or 0].strip() for row in rows[1 if column is not None else 0:] if row and any(row)]
    home_root = Path(args.home_root)
    created = kept = refused = 0
    for name in names:
        if not ACCOUNT.match(name):
            print(f"{args.roster}: {name!r} is not a valid user name (lower-case letters, digits, _ and -, "
                  "32 at most, not starting with a digit or -): not created", file=sys.stderr)
            refused += 1
            continue
        if make_account(name, home_root):
            created += 1
        else:
            kept += 1
        join(name, f"nbgrader-{course_id}")
    say(f"{course_id}: {created} account(s) created, {kept} already there, {refused} refused; "
        f"set passwords with passwd or chpasswd")
    if refused:
        sys.exit(1)


def grade(args) -> None:
    """`python -m autograder grade` as root (the caps and the uid drop need it), in the course the
    Formgrader serves, from the instructor's environment; then the course is the grader's again."""
    if os.geteuid() != 0:
        fail("run as root: grading caps each submission with cgroups and drops it to a uid of its own")
    base = Path(args.base).absolute()
    course = hub_course(base, args.course)
    python = Path(json.loads((base / "hub.json").read_text())["instructor_venv"]) / "bin" / "python"
    folder = Path(course["dir"])
    argv = [python, "-m", "autograder", "--course", folder, "grade", folder / "submitted", "--assignment",
            args.assignment, "--out", folder / "grading" / args.assignment, *args.rest]
    env = {**os.environ, "PATH": f"{python.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    env.pop("VIRTUAL_ENV", None)
    try:
        done = subprocess.run([str(a) for a in argv], cwd=folder, env=env)
    finally:
        run("chown", "-R", f"{course['grader']}:{course['grader']}", folder)
    sys.exit(done.returncode)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="hub/setup.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="/srv/finite-hub", help="the hub's configuration and state")
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("start", help="install what is missing, set up and start the hub")
    go.add_argument("--ip")
    go.add_argument("--port", type=int)
    go.add_argument("--memory-mb", type=int, help=f"each student's server (default {DEFAULTS['memory_mb']})")
    go.add_argument("--max-procs", type=int, help=f"each student's server (default {DEFAULTS['max_procs']})")
    go.add_argument("--cpus", type=float, help=f"each student's server (default {DEFAULTS['cpus']:g})")
    go.add_argument("--file-mb", type=int, help=f"the largest file a student's server writes (default {DEFAULTS['file_mb']})")
    go.add_argument("--prefix", default="/opt/finite-hub", help="where the environments are installed")
    go.add_argument("--learner-venv", help="a learners' environment built already (default: PREFIX/learner)")
    go.add_argument("--instructor-venv", help="an instructor's environment built already (default: PREFIX/instructor)")
    go.add_argument("--proxy", help="a configurable-http-proxy command (default: from npm into PREFIX/proxy)")
    go.add_argument("--exchange", default="/srv/nbgrader/exchange")
    go.add_argument("--course", default="/home/grader-finite/finite",
                    help="the course folder (made a copy of this repository if absent; its nbgrader_config.py "
                         "names the course)")
    go.add_argument("--grader", help="the account the Formgrader runs as; owns the course (default: grader-ID)")
    go.add_argument("--graders", default="", help="accounts (comma-separated) to add to formgrade-ID")
    go.add_argument("--home-root", default="/home", help="where new accounts' homes are made")
    go.add_argument("--wait", type=int, default=90, help="seconds to wait for the hub to answer")
    roster = commands.add_parser("users", help="student accounts from a roster (CSV: an id column, or the first)")
    roster.add_argument("roster")
    roster.add_argument("--course", help="the course id (default: the hub's only course)")
    roster.add_argument("--home-root", default="/home")
    marks = commands.add_parser("grade", help="grade an assignment as root, in the hub's course (capped)")
    marks.add_argument("assignment")
    marks.add_argument("--course", help="the course id (default: the hub's only course)")
    marks.add_argument("rest", nargs=argparse.REMAINDER, help="more options of `python -m autograder grade`")
    commands.add_parser("stop")
    commands.add_parser("status")
    args = parser.parse_args(argv)
    {"start": start, "users": users, "grade": grade, "stop": stop, "status": status}[args.command](args)


if __name__ == "__main__":
    main()
