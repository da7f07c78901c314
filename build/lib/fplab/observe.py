"""Observations: what a hidden test saw the learner's code produce, published as plain data.

A hidden test calls :func:`observe` (or :func:`observe_call`) on each value it checks. The value
is encoded as plain data (tensors and arrays as dtype, shape and raw bytes) and published as
display data of the MIME type :data:`MIME`. The grader, in another process, compares these
observations with the ones the same test cell made on the instructor's solution; nothing the
kernel concludes about them can raise a score.

Encoding reads values through the base classes' own methods, so an object that lies about
itself (an ``__eq__`` that is always true, a ``str`` subclass whose ``strip`` misbehaves) is
recorded as what it is, or as unserialisable, which never matches.
"""
import base64
import math
from typing import Any, Callable

import numpy as np
import torch

MIME = "application/vnd.finite.observation+json"

_PLAIN_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)


def encode(value: Any, depth: int = 0) -> dict:
    """Plain-data form of ``value`` (see the module docstring); never raises."""
    try:
        return _encode(value, depth)
    except Exception as error:  # a value that breaks encoding is recorded, never trusted
        return {"t": "unserialisable", "type": _type_name(value), "why": type(error).__name__}


def _type_name(value: Any) -> str:
    return _class_name(type(value))


def _class_name(cls: type) -> str:
    """``module.qualname`` of a class, read through ``type`` itself (a class cannot lie about it)."""
    return f"{type.__getattribute__(cls, '__module__')}.{type.__getattribute__(cls, '__qualname__')}"


def _encode(value: Any, depth: int) -> dict:
    if depth > 20:
        return {"t": "unserialisable", "type": "nested too deep"}
    cls = type(value)
    if value is None:
        return {"t": "none"}
    if cls is bool:
        return {"t": "bool", "v": value}
    if cls is int:
        return {"t": "int", "v": int.__repr__(value)}
    if cls is float:
        return {"t": "float", "v": float.hex(value)}
    if cls is str:
        return {"t": "str", "v": str.__str__(value)}
    if cls in (list, tuple):
        items = [_encode(item, depth + 1) for item in cls.__iter__(value)]
        return {"t": cls.__name__, "v": items}
    if cls is dict:
        items = [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in dict.items(value)]
        return {"t": "dict", "v": items}
    if cls in _PLAIN_TENSOR_TYPES:
        return _encode_tensor(value)
    if cls is np.ndarray or isinstance(value, np.generic):
        return _encode_array(value)
    if cls is torch.dtype:
        return {"t": "dtype", "v": str(value)}
    if cls is torch.Size:
        return {"t": "tuple", "v": [_encode(int(d), depth + 1) for d in tuple.__iter__(value)]}
    return {"t": "unserialisable", "type": _type_name(value)}


def _encode_tensor(t: torch.Tensor) -> dict:
    data = torch.Tensor.detach(t)
    data = torch.Tensor.contiguous(torch.Tensor.cpu(data))
    if data.is_complex() or data.is_sparse or data.is_quantized:
        return {"t": "unserialisable", "type": "tensor of an unsupported layout"}
    raw = data.view(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b""
    return {"t": "tensor", "dtype": str(data.dtype), "shape": list(data.shape),
            "bytes": base64.b64encode(raw).decode()}


def _encode_array(a: Any) -> dict:
    array = np.ascontiguousarray(np.asarray(a))
    if array.dtype.kind not in "biuf":
        return {"t": "unserialisable", "type": f"array of dtype {array.dtype}"}
    tag = "ndarray" if type(a) is np.ndarray else "npscalar"
    return {"t": tag, "dtype": array.dtype.str, "shape": list(array.shape),
            "bytes": base64.b64encode(array.tobytes()).decode()}


def _publish(record: dict) -> None:
    from IPython.display import publish_display_data

    publish_display_data({MIME: record})


def observe(name: str, value: Any, *, rtol: float = 0.0, atol: float = 0.0, group: str | None = None) -> Any:
    """Publish ``value`` under ``name`` for the grader, and return it unchanged.

    ``rtol``/``atol`` are how far a floating-point value may be from the reference's
    (|got − ref| ≤ atol + rtol·|ref|); the grader takes them from the reference run only.
    ``group`` splits a test cell's points: each group scores its share when all of its
    observations match.
    """
    for label, number in (("rtol", rtol), ("atol", atol)):
        if not (isinstance(number, (int, float)) and math.isfinite(number) and number >= 0):
            raise ValueError(f"observe: {label} must be a finite number >= 0, got {number!r}")
    _publish({"name": str(name), "value": encode(value), "rtol": float(rtol), "atol": float(atol),
              "group": None if group is None else str(group)})
    return value


def observe_call(name: str, fn: Callable, *args: Any, rtol: float = 0.0, atol: float = 0.0,
                 group: str | None = None, **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` and observe its result, or the class of what it raised.

    Returns the result, or the exception instance when the call raised (an ``Exception``;
    anything else propagates).
    """
    try:
        result = fn(*args, **kwargs)
    except Exception as error:
        names = [_class_name(c) for c in type(error).__mro__]
        _publish({"name": str(name), "value": {"t": "raised", "v": names}, "rtol": 0.0, "atol": 0.0,
                  "group": None if group is None else str(group)})
        return error
    return observe(name, result, rtol=rtol, atol=atol, group=group)
