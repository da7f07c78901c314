"""Instructor tooling for the Finite course: release, self-check, benchmarks.

Run as ``python -m autograder <command>``; see ``python -m autograder --help``.
"""
