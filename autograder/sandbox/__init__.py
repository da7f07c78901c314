"""The sandbox: the only code that runs a student's notebook."""


class SandboxError(Exception):
    """The sandbox cannot be set up on this machine (missing bwrap, unsafe layout), or failed for a
    reason of ours."""


class ExecutorFailed(SandboxError):
    """The executor process ended without a report and no cap explains it: its exit status and the
    last line of its own log, as data."""

    def __init__(self, returncode: int | None, why: str):
        super().__init__(f"the executor ended without a result (exit {returncode}): {why}")
        self.returncode, self.why = returncode, why
