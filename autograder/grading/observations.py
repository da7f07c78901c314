"""Observations: read a test cell's, and compare a student's with the reference run's, outside the kernel.

A test cell's observations are the display-data outputs of MIME type ``fplab.observe.MIME``
it produced (see ``fplab/observe.py``). Names, order, tolerances and groups come from the
reference run only; from the student's run only the values are taken. Problems are said
in the grader's own words: which check differed, and the reference's kind, dtype or shape. Never
the expected value (it would reveal a hidden check's answer), nor a string, a number or a kind the
learner's code chose (that code ran while hidden tests were in the kernel: a count, an index or a
name would carry them to the page, a few bytes at a time).
"""
import base64
import json
from dataclasses import dataclass, field

import numpy as np
import torch

from fplab.observe import MIME

MAX_OBSERVATIONS = 2000  # per cell: more than any test makes; a flood is malformed


class MalformedObservation(Exception):
    """A cell's observation outputs are not what ``fplab.observe`` writes."""


@dataclass(frozen=True)
class Observation:
    name: str
    value: dict
    rtol: float = 0.0
    atol: float = 0.0
    group: str | None = None


@dataclass
class Comparison:
    """How much of a test cell's points the observations earn, and what differed."""

    fraction: float
    problems: list = field(default_factory=list)


def read_observations(cell, expected: int | None = None) -> list:
    """The observations a cell's outputs hold, in order; MalformedObservation if any is broken.
    ``expected``: how many the reference made; parsing stops one past it (:func:`compare_observations` scores
    that 0 whatever the rest holds), so a flood costs the trusted side nothing more."""
    found = []
    for output in cell.get("outputs", []):
        if output.get("output_type") not in ("display_data", "execute_result"):
            continue
        record = output.get("data", {}).get(MIME)
        if record is None:
            continue
        if isinstance(record, str):  # some front ends store JSON MIME data as text
            try:
                record = json.loads(record)
            except ValueError:
                raise MalformedObservation("an observation is not JSON") from None
        found.append(_observation(record))
        if expected is not None and len(found) > expected:
            return found
        if len(found) > MAX_OBSERVATIONS:
            raise MalformedObservation(f"more than {MAX_OBSERVATIONS} observations")
    return found


def _observation(record) -> Observation:
    if not isinstance(record, dict) or not isinstance(record.get("name"), str) \
            or not isinstance(record.get("value"), dict):
        raise MalformedObservation("an observation lacks a name or a value")
    rtol, atol, group = record.get("rtol", 0.0), record.get("atol", 0.0), record.get("group")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in (rtol, atol)):
        raise MalformedObservation("an observation has a bad tolerance")
    if group is not None and not isinstance(group, str):
        raise MalformedObservation("an observation has a bad group")
    return Observation(record["name"], record["value"], float(rtol), float(atol), group)


def compare_observations(reference: list, got: list) -> Comparison:
    """Score one test cell's observations against the reference's."""
    if len(got) > len(reference):
        return Comparison(0.0, ["more observations than the test makes (made by code outside the test?)"])
    groups = {ref.group for ref in reference}
    raised = {ref.value["v"][0] for ref in reference if ref.value.get("t") == "raised" and ref.value.get("v")}
    failed, problems = set(), []
    for index, ref in enumerate(reference):
        if index >= len(got):
            problems.append(f"{ref.name}: not reached (the test stopped before this check)")
            failed.update(r.group for r in reference[index:])
            break
        if got[index].name != ref.name:
            return Comparison(0.0, [f"{ref.name}: observations out of order (another observation came here)"])
        why = compare(ref.value, got[index].value, ref.rtol, ref.atol, raised)
        if why:
            problems.append(f"{ref.name}: {why}")
            failed.add(ref.group)
    return Comparison((len(groups) - len(failed)) / len(groups) if groups else 0.0, problems)


def compare(ref: dict, got: dict, rtol: float, atol: float, raised=frozenset()) -> str | None:
    """None when ``got`` matches ``ref`` within the tolerance, else why not (never ref's value).

    ``raised``: every exception class the cell's reference raises. A raise matches the
    reference's class or a subclass of it that is not also another of those classes (one class
    that is at once two expected ones would pass every "raises" check of the cell).
    """
    try:
        return _compare(ref, got, rtol, atol) if ref.get("t") != "raised" else _compare_raised(ref, got, raised)
    except (KeyError, TypeError, ValueError, RuntimeError):
        return "malformed value"


def _compare(ref, got, rtol, atol):
    kind = ref["t"]
    if kind == "unserialisable":
        return "the reference value is not plain data"
    if kind == "raised":
        return _compare_raised(ref, got, frozenset())
    if got.get("t") != kind:
        return f"expected {_a(_kind_name(ref))}; your value is not one"
    if kind in ("tensor", "ndarray", "npscalar"):
        return _compare_array(ref, got, rtol, atol)
    if kind == "float":
        bad = _bad(torch.tensor([float.fromhex(ref["v"])], dtype=torch.float64),
                   torch.tensor([float.fromhex(got["v"])], dtype=torch.float64), rtol, atol)
        return "your value is not close enough" if bool(bad.any()) else None
    if kind in ("list", "tuple"):
        if len(got["v"]) != len(ref["v"]):
            return f"expected a {kind} of {len(ref['v'])} items; yours has another length"
        for r, g in zip(ref["v"], got["v"]):
            why = _compare(r, g, rtol, atol)
            if why:
                return f"an item: {why}"
        return None
    if kind == "dict":
        ref_items = {json.dumps(k, sort_keys=True): v for k, v in ref["v"]}
        got_items = {json.dumps(k, sort_keys=True): v for k, v in got["v"]}
        if set(ref_items) != set(got_items):
            return "the keys differ from the expected ones"
        for key, r in ref_items.items():
            why = _compare(r, got_items[key], rtol, atol)
            if why:
                return f"an entry: {why}"
        return None
    if ref.get("v") != got.get("v"):
        return "your value is not the expected one"
    return None


def _compare_raised(ref, got, raised):
    expected, mro = ref["v"][0], got.get("v", []) if got.get("t") == "raised" else []
    if not isinstance(mro, list) or expected not in mro:
        return f"expected it to raise {_short(expected)}; it did not"
    others = set(raised) - set(ref["v"])
    if others & set(mro):
        return f"raised a class that is at once {_short(expected)} and another exception this test expects"
    return None


def _short(name: str) -> str:
    return name.removeprefix("builtins.")


def _a(name: str) -> str:
    return name if name == "None" else ("an " if name[0] in "aeiou" else "a ") + name


def _kind_name(value):
    kind = value["t"]
    if kind in ("tensor", "ndarray", "npscalar"):
        return f"{kind} of dtype {value['dtype']} and shape {tuple(value['shape'])}"
    return {"none": "None"}.get(kind, kind)


def decode_array(value: dict) -> torch.Tensor:
    """The tensor an encoded tensor/ndarray/npscalar holds (NumPy arrays become tensors)."""
    raw = base64.b64decode(value["bytes"], validate=True)
    shape = tuple(int(d) for d in value["shape"])
    if value["t"] == "tensor":
        dtype = getattr(torch, value["dtype"].removeprefix("torch."))
        if not isinstance(dtype, torch.dtype):
            raise ValueError("not a dtype")
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.zeros(0, dtype=torch.uint8)
        return flat.view(dtype).reshape(shape) if raw else torch.zeros(shape, dtype=dtype)
    array = np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(shape)
    return torch.from_numpy(array.astype(array.dtype.newbyteorder("=")).copy())


def _compare_array(ref, got, rtol, atol):
    if got["dtype"] != ref["dtype"]:
        return f"the dtype is not the expected {ref['dtype']}"
    if list(got["shape"]) != list(ref["shape"]):
        return f"the shape is not the expected {tuple(ref['shape'])}"
    r, g = decode_array(ref), decode_array(got)
    if r.dtype == torch.bool or (not r.is_floating_point() and rtol == 0 and atol == 0):
        return None if torch.equal(r, g) else "entries differ"
    bad = bool(_bad(r.to(torch.float64), g.to(torch.float64), rtol, atol).any())
    return "entries are not close enough" if bad else None


def _bad(r, g, rtol, atol):
    """Entries of ``g`` that do not match ``r``: NaN where NaN, equal infinities, else close."""
    both_nan = r.isnan() & g.isnan()
    close = (g - r).abs() <= atol + rtol * r.abs()
    same = (r == g) | close | both_nan
    infinite = r.isinf() | g.isinf()
    same = torch.where(infinite, r == g, same)
    return ~same

