"""An exercise's allowlist: its entries, what each resolves to on the pinned stack, and the
:class:`Rule` the checker applies.
"""
import builtins
import importlib
import inspect
import sys
import types
from dataclasses import dataclass
from functools import cached_property, lru_cache


IMPORTABLE = ("fplab", "torch", "numpy", "math", "warnings", "functools")  # what an entry may name (and is imported for)
EXCEPTIONS = frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
                       and issubclass(getattr(builtins, n), BaseException))
DEFAULT_BUILTINS = frozenset({
    "len", "range", "abs", "min", "max", "sum", "enumerate", "zip", "reversed", "sorted", "all", "any",
    "isinstance", "int", "bool", "tuple", "list", "dict", "set", "frozenset", "str", "repr", "print",
    "round", "divmod", "pow", "iter", "next", "slice", "callable", "object", "staticmethod", "classmethod",
    "property", "NotImplemented", "Ellipsis", "__name__",
}) | EXCEPTIONS
PRIMITIVES = (bool, int, float, str, type(None))  # module attributes a learner may set (switches, not code)
# Operations that compute nothing (shape, layout, size and dtype-keeping conversions), allowed on every
# rule so that a list names what matters: the arithmetic. The exercise text says so with SHAPE_NOTE.
SHAPE_METHODS = ("view", "view_as", "reshape", "reshape_as", "squeeze", "unsqueeze", "flatten", "ravel", "permute",
                 "transpose", "T", "mT", "expand", "expand_as", "contiguous", "flip", "unbind", "split", "chunk",
                 "size", "dim", "ndim", "shape", "numel", "numpy")
SHAPE_FUNCTIONS = ("torch.reshape", "torch.squeeze", "torch.unsqueeze", "torch.flatten", "torch.permute",
                   "torch.transpose", "torch.flip", "torch.unbind", "torch.split", "torch.chunk", "torch.numel",
                   "torch.from_numpy")
SHAPE_ENTRIES = frozenset(SHAPE_FUNCTIONS) | {f".{m}" for m in SHAPE_METHODS}
SHAPE_NOTE = ("the **shape operations**, which compute nothing and are allowed on every exercise with a list: "
              + ", ".join(SHAPE_METHODS) + " (as methods), their torch functions, torch.from_numpy, and indexing")
METHOD_TYPES = ("torch.Tensor", "torch.dtype", "torch.finfo", "numpy.ndarray", "numpy.float32", "numpy.dtype",
                "numpy.errstate", "numpy.finfo")


@lru_cache(maxsize=4096)
def object_at(dotted: str):
    """The object a dotted name names, or None. Only the course's own packages are imported for
    this (the learner chooses the names); anything else counts only if already imported."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        module = sys.modules.get(name)
        if module is None and parts[0] in IMPORTABLE:
            try:
                module = importlib.import_module(name)
            except Exception:  # not a module (an attribute), or it fails to import: not known
                module = None
        if module is None:
            continue
        value = module
        for part in parts[cut:]:
            try:
                value = inspect.getattr_static(value, part)
            except AttributeError:
                return None
        return value
    return None


def unresolved_entries(entries) -> list:
    """The entries of an allowlist that name nothing on this stack (for ``check``)."""
    bad = []
    for entry in map(str, entries):
        if entry.startswith("."):
            name = entry[1:]
            if not name.isidentifier() or name.startswith("__") or \
                    not any(_has_attribute(object_at(t), name) for t in METHOD_TYPES) and \
                    not any(hasattr(t, name) for t in (float, int, str, list, tuple, dict, set)):
                bad.append(entry)
        elif "." not in entry:
            if not (hasattr(builtins, entry) or entry in IMPORTABLE) or entry.startswith("_"):
                bad.append(entry)
        elif entry.split(".")[0] not in IMPORTABLE or object_at(entry) is None:
            bad.append(entry)
    return bad


def _has_attribute(owner, name) -> bool:
    if owner is None:
        return False
    try:
        inspect.getattr_static(owner, name)
        return True
    except AttributeError:
        return False


RULE_PREFIX = "this exercise's method rule: "  # how a breach's message starts, on the page and in the kernel


@dataclass(frozen=True)
class Rule:
    """An exercise's allowlist, split by kind."""

    names: frozenset  # dotted module names ("torch.exp"), or whole modules ("math")
    methods: frozenset  # attribute names on values ("exp")
    builtins: frozenset  # allowed builtins, defaults included

    @classmethod
    def of(cls, entries) -> "Rule":
        return _rule(tuple(str(e) for e in entries))

    @classmethod
    def _build(cls, entries) -> "Rule":
        entries = (*entries, *SHAPE_ENTRIES)
        dotted = {e for e in entries if "." in e and not e.startswith(".")}
        modules = {e for e in entries if "." not in e and e in IMPORTABLE}
        return cls(frozenset(dotted | modules), frozenset(e[1:] for e in entries if e.startswith(".")),
                   DEFAULT_BUILTINS | {e for e in entries if "." not in e and e not in IMPORTABLE})

    @cached_property
    def identities(self) -> dict:
        """{id(object): entry} for the entries that name a function, class or dtype (so an alias such
        as ``numpy.single`` of ``numpy.float32`` is the same entry)."""
        found = {}
        for entry in self.names:
            value = object_at(entry)
            if value is not None and not isinstance(value, (types.ModuleType, *PRIMITIVES)):
                found[id(value)] = (entry, value)
        return found

    @cached_property
    def dtypes(self) -> set:
        """NumPy dtypes of the entries that name a type (``numpy.float32``, ``torch.float32``)."""
        import numpy

        import torch

        found = {numpy.dtype(t) for t in (float, complex) if t.__name__ in self.builtins}
        for entry in self.names:
            value = object_at(entry)
            try:
                if isinstance(value, torch.dtype):
                    found.add(numpy.dtype(str(value).removeprefix("torch.")))
                elif isinstance(value, type) and issubclass(value, numpy.generic):
                    found.add(numpy.dtype(value))
            except TypeError:  # bfloat16 and the like: no NumPy twin
                continue
        return found

    @property
    def protected(self) -> frozenset:
        """Attribute names whose rebinding would change what this rule lets a graded function call."""
        return self.methods | {name.rsplit(".", 1)[-1] for name in self.names}

    def allows(self, dotted: str) -> bool:
        """True when a dotted name is an entry, the same object as one, or a public name of an
        allowed whole module."""
        if dotted in self.names:
            return True
        head, _, tail = dotted.rpartition(".")
        if head in self.names and isinstance(object_at(head), types.ModuleType) and not tail.startswith("_"):
            return True
        value = object_at(dotted)
        return value is not None and not isinstance(value, PRIMITIVES) and id(value) in self.identities \
            and self.identities[id(value)][1] is value

    def leads_to_entry(self, dotted: str) -> bool:
        """True when a dotted name is a module on the way to an entry (``torch.nn`` for
        ``torch.nn.functional.softplus``)."""
        return any(name.startswith(dotted + ".") or name == dotted for name in self.names) \
            and isinstance(object_at(dotted), types.ModuleType)


@lru_cache(maxsize=64)
def _rule(entries: tuple) -> Rule:
    return Rule._build(entries)
