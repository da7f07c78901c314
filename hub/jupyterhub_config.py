"""JupyterHub for this course (README, "A class on JupyterHub"); `make hub` copies it into the hub's
base folder and starts `jupyterhub -f` on that copy.

Everything that differs between machines and courses is read from the base folder, never written
here: hub.json (address, caps, the environments; written by hub/setup.py from `make hub`'s
variables) and one courses/ID.json per course (its folder, its grader account, its service's port).
Each course gets what nbgrader's JupyterHub docs give one: the groups nbgrader-ID (students) and
formgrade-ID (graders), their roles, and a managed service ID running the Formgrader as the grader
account, in the course folder, from the instructor's environment.
"""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

c = get_config()  # noqa: F821 (provided by JupyterHub)

settings = json.loads((HERE / "hub.json").read_text())
courses = [json.loads(p.read_text()) for p in sorted((HERE / "courses").glob("*.json"))]
STATE = HERE / "state"

c.JupyterHub.ip = settings["ip"]
c.JupyterHub.port = settings["port"]
c.JupyterHub.hub_port = settings["port"] + 1
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['port'] + 2}"

# Logins: PAM (pamela), for the accounts of the courses' groups; hub groups follow the OS groups.
c.JupyterHub.authenticator_class = "finite_hub.CourseGroupsPAM"
# No admins and no access to another user's server: a grader's browser never loads a page a student
# wrote (what lets the Formgrader service be framed by its own lab: instructor/jupyter_server_config.py).
c.Authenticator.admin_users = set()
c.Authenticator.allowed_groups = {f"{kind}-{course['id']}" for course in courses for kind in ("nbgrader", "formgrade")}

# Students' servers: the learners' environment (built from the kit), capped (README: the caps).
learner = Path(settings["learner_venv"])
c.JupyterHub.spawner_class = "finite_hub.CappedSpawner"
c.CappedSpawner.memory_mb = settings["memory_mb"]
c.CappedSpawner.max_procs = settings["max_procs"]
c.CappedSpawner.cpus = settings["cpus"]
c.CappedSpawner.file_mb = settings["file_mb"]
c.Spawner.cmd = [str(learner / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "PATH": f"{learner / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    # learner/nbgrader_config.py: the exchange and nbgrader's JupyterHubAuthPlugin
    "JUPYTER_CONFIG_PATH": str(HERE / "learner"),
}
c.Spawner.http_timeout = 60  # seconds a server may take to answer (JupyterHub: 30), for a busy server

# nbgrader's roles for each course (nbgrader docs, "JupyterHub": demo_multiple_classes), with the
# scopes the Formgrader and the Assignments tab need (nbgrader #1831, #1872, #1900).
roles = [
    # the Assignments tab (nbgrader's JupyterHubAuthPlugin) reads the user's groups with the server's token
    {"name": "server", "scopes": ["inherit"]},
]
services = []
instructor = Path(settings["instructor_venv"])
for course in courses:
    course_id, service = course["id"], course["id"]
    roles += [
        {"name": f"formgrade-{course_id}", "groups": [f"formgrade-{course_id}"],
         "scopes": [f"access:services!service={service}", f"read:services!service={service}", "list:services"]},
        {"name": f"nbgrader-{course_id}", "groups": [f"nbgrader-{course_id}"],
         "scopes": ["list:services", f"read:services!service={service}"]},
        # the service adds a student it grades to nbgrader-ID (nbgrader's add_student_to_course) and
        # reads its own account (the grader's) to list its courses
        {"name": f"service-{course_id}", "services": [service],
         "scopes": ["list:groups", f"groups!group=nbgrader-{course_id}", f"read:groups!group=nbgrader-{course_id}",
                    f"read:users!user={course['grader']}", f"read:users:groups!group=nbgrader-{course_id}"]},
        # the grader account must be a hub user for the Formgrader's course list (#1872); it never logs in
        {"name": f"grader-{course_id}", "users": [course["grader"]], "scopes": ["self"]},
    ]
    services.append({
        "name": service,
        "url": f"http://127.0.0.1:{course['port']}",
        "command": [str(instructor / "bin" / "jupyterhub-singleuser")],
        "user": course["grader"],
        "oauth_no_confirm": True,  # the course's own service: no "authorize access" page for its graders
        "cwd": course["dir"],
        "environment": {
            # the services menu opens the Formgrader itself, a page of its own; the service's lab
            # (ID/lab) has the Formgrader tab, which frames it (instructor/jupyter_server_config.py)
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
            "PATH": f"{instructor / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": course["home"],
            "FINITE_EXCHANGE": settings["exchange"],
            # instructor/: nbgrader_config.py (nbgrader's JupyterHubAuthPlugin), jupyter_server_config.py
            "JUPYTER_CONFIG_PATH": str(HERE / "instructor"),
        },
    })
c.JupyterHub.load_roles = roles
c.JupyterHub.services = services
