"""The sandbox: the only code that runs a student's notebook."""


class SandboxError(Exception):
    """The sandbox cannot be set up on this machine (missing bwrap, unsafe layout), or failed for a
    reason of ours."""
