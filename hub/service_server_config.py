"""The Formgrader service's Jupyter server (hub/setup.py copies it to BASE/instructor/jupyter_server_config.py).

Its lab's Formgrader tab is nbgrader's page in a frame, which JupyterHub's default for every server,
``frame-ancestors 'none'``, leaves blank (nbgrader #1870). The service's pages, and only the service's,
may be framed by pages of the hub's own address ('self'); students' servers keep 'none'.

That is safe on this hub because no page of its address is written by one person and opened by another:
it has no admin users and grants no access to another user's server (hub/jupyterhub_config.py), so a
grader's browser never loads a student's server, and the Formgrader shows submissions inert
(autograder/grading/inert.py). A hub that makes someone an admin, or shares servers, needs JupyterHub's
subdomains before it keeps this line (nbgrader's docs, "Formgrader with JupyterHub 4.1").
"""
c = get_config()  # noqa: F821 (provided by Jupyter)

c.ServerApp.tornado_settings = {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}
