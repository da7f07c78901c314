"""Failure signatures: what a wrong answer's observations had wrong, in the course's own words.

The judge says pass or fail; for the instructor's item analysis (:mod:`autograder.grading.items`)
the same comparison is named from a fixed vocabulary: NaN or inf where the reference is finite, a
dtype, a shape, an exception raised or not, off by a few ulps or by a relative error's decade. Every
word is the judge's: a dtype or a kind is named only when it is one the vocabulary knows (else
"another dtype"), numbers are bucketed, and the only names are the reference's observation names
(the instructor's hidden tests). Nothing here reaches a student.
"""
import math

import torch

from autograder.grading.observations import MalformedObservation, compare, decode_array, read_observations
from fplab.rules import RULE_PREFIX

KINDS = {"tensor", "ndarray", "npscalar", "float", "int", "bool", "str", "list", "tuple", "dict", "none", "raised"}
DTYPES = {str(t) for t in vars(torch).values() if isinstance(t, torch.dtype)} | {
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
    "complex64", "complex128"}
ULP_BUCKETS = (1, 4, 64, 1024)  # "within k ulps" for the first k that covers the worst entry
RULE = "method rule breach"
STOPPED = "did not run to its end (stopped, timed out or never reached)"
NOT_REACHED = "not reached (the test stopped before this check)"
VISIBLE = "a visible check failed"  # score.visible_check's words: the release's own assert, without values
KERNEL_ONLY = "observations match, the cell failed in the kernel (a visible check, an error or stderr)"


def _kind(value: dict) -> str:
    kind = value.get("t") if isinstance(value, dict) else None
    return kind if kind in KINDS else "another kind"


def signature(ref: dict, got: dict, rtol: float, atol: float) -> str:
    """How ``got`` differs from ``ref`` (which the judge found not to match), in the fixed vocabulary."""
    try:
        return _signature(ref, got, rtol, atol)
    except (KeyError, TypeError, ValueError, RuntimeError, OverflowError):
        return "malformed value"


def _signature(ref, got, rtol, atol):
    if ref["t"] == "raised":
        return "raised another exception class" if _kind(got) == "raised" else f"did not raise {ref['v'][0].removeprefix('builtins.')}"
    if _kind(got) == "raised":
        return "raised an exception"
    if _kind(got) != ref["t"]:
        return f"{_kind(got)} where {ref['t']} was expected"
    if ref["t"] in ("tensor", "ndarray", "npscalar"):
        if got["dtype"] != ref["dtype"]:
            return f"dtype {got['dtype'] if got['dtype'] in DTYPES else 'another dtype'} where {ref['dtype']} was expected"
        if list(got["shape"]) != list(ref["shape"]):
            return "wrong shape"
        return _numbers(decode_array(ref), decode_array(got))
    if ref["t"] == "float":
        return _numbers(torch.tensor([float.fromhex(ref["v"])]), torch.tensor([float.fromhex(got["v"])]))
    if ref["t"] in ("list", "tuple"):
        if len(got["v"]) != len(ref["v"]):
            return "wrong length"
        return next((f"an item: {_signature(r, g, rtol, atol)}" for r, g in zip(ref["v"], got["v"]) if r != g), "wrong value")
    if ref["t"] == "dict":
        if sorted(map(repr, (k for k, _ in ref["v"]))) != sorted(map(repr, (k for k, _ in got["v"]))):
            return "wrong keys"
        return "an entry differs"
    return "wrong value"


def _numbers(r: torch.Tensor, g: torch.Tensor) -> str:
    """Non-finite where finite, finite where not, a sign, else how far: ulps of the reference's dtype,
    or the decade of the relative error."""
    if not r.is_floating_point():
        return "entries differ"
    spacing = _spacing(r)
    r, g = r.to(torch.float64).flatten(), g.to(torch.float64).flatten()
    finite = r.isfinite()
    if (g.isnan() & finite).any():
        return "NaN where the reference is finite"
    if (g.isinf() & finite).any():
        return "inf where the reference is finite"
    if (~finite & g.isfinite()).any():
        return "finite where the reference is NaN or inf"
    if (~finite & (g != r) & ~(g.isnan() & r.isnan())).any():
        return "another non-finite value"
    off = (g - r).abs()
    if ((torch.sign(g) * torch.sign(r) < 0) & (off > 0)).any():
        return "sign differs"
    ulps = float((off / spacing.flatten().clamp_min(torch.finfo(torch.float64).tiny)).max()) if off.numel() else 0.0
    for k in ULP_BUCKETS:
        if ulps <= k:
            return f"within {k} ulp{'s' if k > 1 else ''}"
    relative = float((off / r.abs().clamp_min(torch.finfo(torch.float64).tiny)).max())
    return f"relative error about 1e{max(-16, min(16, round(math.log10(relative)))) if relative > 0 else 0}"


def _spacing(r: torch.Tensor) -> torch.Tensor:
    """The gap to the next float of each reference entry, in the reference's own dtype."""
    dtype = r.dtype if r.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) else torch.float64
    r = r.to(dtype)
    up = torch.nextafter(r, torch.full_like(r, math.inf))
    return (up.to(torch.float64) - r.to(torch.float64)).abs()


def cell_signatures(reference: list, cell) -> list:
    """[(reference observation name, signature)] for a test cell's observations that differ."""
    try:
        got = read_observations(cell, len(reference))
    except MalformedObservation:
        return [("", "malformed observations")]
    if len(got) > len(reference):
        return [("", "more observations than the test makes")]
    raised = {r.value["v"][0] for r in reference if r.value.get("t") == "raised" and r.value.get("v")}
    found = []
    for index, ref in enumerate(reference):
        if index >= len(got):
            return found + [(ref.name, NOT_REACHED)]
        if got[index].name != ref.name:
            return found + [(ref.name, "observations out of order")]
        if compare(ref.value, got[index].value, ref.rtol, ref.atol, raised):
            found.append((ref.name, signature(ref.value, got[index].value, ref.rtol, ref.atol)))
    return found


def tolerance_use(reference: list, cell) -> float | None:
    """How much of its tolerance a test cell's observations use: the largest |got - reference| /
    (atol + rtol |reference|) over the finite entries of every observation that has a tolerance
    (1 is the edge; above it the judge refuses). None when the cell has no such observation or its
    observations are malformed. For the self-check's tolerance audit; never shown to a student."""
    try:
        got = read_observations(cell, len(reference))
    except MalformedObservation:
        return None
    uses = [_use(ref.value, mine.value, ref.rtol, ref.atol)
            for ref, mine in zip(reference, got) if ref.name == mine.name and (ref.rtol or ref.atol)]
    uses = [u for u in uses if u is not None]
    return max(uses) if uses else None


def tolerance_uses(nb, assignment) -> dict:
    """{test grade_id: :func:`tolerance_use`} for each test cell of ``nb`` whose observations have one."""
    cells = _test_cells(nb)
    uses = {test: tolerance_use(assignment.reference.get(test, []), cells[test]) for test in assignment.tests if test in cells}
    return {test: use for test, use in uses.items() if use is not None}


def _test_cells(nb) -> dict:
    return {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in (nb.cells if nb is not None else [])}


def _use(ref, got, rtol, atol) -> float | None:
    try:
        if ref["t"] != got.get("t"):
            return None
        if ref["t"] in ("list", "tuple") and len(ref["v"]) == len(got["v"]):
            uses = [u for u in (_use(r, g, rtol, atol) for r, g in zip(ref["v"], got["v"])) if u is not None]
            return max(uses) if uses else None
        if ref["t"] == "float":
            r, g = (torch.tensor([float.fromhex(v["v"])], dtype=torch.float64) for v in (ref, got))
        elif ref["t"] in ("tensor", "ndarray", "npscalar") and got["shape"] == ref["shape"]:
            r, g = (decode_array(v).to(torch.float64).flatten() for v in (ref, got))
        else:
            return None
    except (KeyError, TypeError, ValueError, RuntimeError):
        return None
    both = r.isfinite() & g.isfinite()
    if not both.any():
        return None
    off, allowed = (g - r).abs()[both], (atol + rtol * r.abs())[both]
    return float(torch.where(off == 0, 0.0, off / allowed).max())


def failure_signatures(nb, assignment, scores: dict, errors: dict, limit: int = 3) -> dict:
    """{test grade_id: [[observation, signature], ...]} (at most ``limit`` each) for every test cell
    that lost points, in the judge's words."""
    cells = _test_cells(nb)
    found = {}
    for test, points in assignment.tests.items():
        if scores.get(test, 0) >= points:
            continue
        why = errors.get(test, "")
        if why.startswith(RULE_PREFIX):
            found[test] = [["", RULE]]
        elif test not in cells or why.startswith(("did not run", "stopped in this cell", "timed out")):
            found[test] = [["", STOPPED]]
        else:
            pairs = cell_signatures(assignment.reference.get(test, []), cells[test])[:limit] or [("", KERNEL_ONLY)]
            if pairs[0][1] == NOT_REACHED:  # the cell raised before this check: say where, in the release's words
                first = why.split("; ")[0]
                pairs[0] = (pairs[0][0], first if first.startswith(VISIBLE) else "raised before this check")
            found[test] = [list(pair) for pair in pairs]
    return found
