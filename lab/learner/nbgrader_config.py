# The learner's nbgrader configuration (a Python file: nbgrader warns "No nbgrader_config.py file
# found" on every command without one). Its submit leaves the submission writable by its student
# alone (fplab/exchange.py).
c = get_config()  # noqa: F821
c.ExchangeFactory.submit = "fplab.exchange.Submit"
# Validate gives a cell as long as grading does (c.SandboxLimits.cell_timeout, 60 s by default).
c.Execute.timeout = 60
