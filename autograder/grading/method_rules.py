"""Method rules, judged from the source a learner wrote (trusted side; no kernel).

A result cannot show how it was computed, so where an exercise's text says "write it yourself",
"without X" or "in NumPy", its answer cell in the source notebook declares
``metadata.finite.forbid``: dotted names (``torch.logsumexp``; a module such as ``torch`` forbids
everything in it) and ``.name`` entries (any attribute named ``name``: a method such as
``z.logsumexp(...)``). Names are resolved through the cell's imports and simple aliases.

Code that looks things up dynamically (``getattr`` with a computed name, ``eval``, frames,
``linecache``, patching ``torch`` or ``fplab``) cannot be checked this way; it is reported for
the instructor to review, never scored.
"""
import ast
from dataclasses import dataclass

PATCHED_MODULES = ("builtins", "fplab", "torch", "numpy", "math", "IPython", "sys", "nbformat", "inspect")
DYNAMIC_CALLS = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars", "get_ipython",
                 "breakpoint"}
DYNAMIC_NAMES = {"In", "Out", "_ih", "_oh", "_ii", "_iii", "__builtins__"}
DYNAMIC_MODULES = ("importlib", "inspect", "linecache", "gc", "ctypes", "dis")
DYNAMIC_ATTRIBUTES = {"_getframe", "f_back", "f_locals", "f_globals", "f_code", "tb_frame", "gi_frame",
                      "cr_frame", "__globals__", "__closure__", "__code__", "modules", "__dict__",
                      "__subclasses__", "__builtins__", "co_consts"}


class AnswerSyntaxError(Exception):
    """An answer cell that is not valid Python (after IPython's own transformations)."""


@dataclass(frozen=True)
class Use:
    name: str  # dotted name as resolved, or ".attr"
    line: int


def parse(source: str) -> ast.Module:
    """The AST of a cell as IPython would run it (magics become calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError as error:
        raise AnswerSyntaxError(f"line {error.lineno}: {error.msg}") from None


class _Resolver(ast.NodeVisitor):
    """Collects the dotted names a module uses, through ``import`` aliases and ``x = module``."""

    def __init__(self):
        self.aliases: dict[str, str] = {}
        self.uses: list[Use] = []
        self.review: list[str] = []

    def dotted(self, node) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def visit_Import(self, node):
        for alias in node.names:
            self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
            self.uses.append(Use(alias.name, node.lineno))
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for alias in node.names:
            full = f"{node.module}.{alias.name}" if node.module else alias.name
            if alias.name == "*":
                self.review.append(f"line {node.lineno}: `from {node.module} import *`")
                full = node.module or ""
            else:
                self.aliases[alias.asname or alias.name] = full
            self.uses.append(Use(full, node.lineno))

    def visit_Assign(self, node):
        source = self.dotted(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and source and source.split(".")[0] in self.aliases.values():
                self.aliases[target.id] = source
            if isinstance(target, ast.Attribute):
                patched = self.dotted(target.value) or ""
                if patched.split(".")[0] in PATCHED_MODULES or patched in ("get_ipython()",):
                    self.review.append(f"line {node.lineno}: replaces {patched}.{target.attr}")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name = self.dotted(node)
        self.uses.append(Use(name or f".{node.attr}", node.lineno))
        if name:
            self.uses.append(Use(f".{node.attr}", node.lineno))
        if node.attr in DYNAMIC_ATTRIBUTES:
            self.review.append(f"line {node.lineno}: reads .{node.attr}")
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.uses.append(Use(self.aliases.get(node.id, node.id), node.lineno))
        if node.id in DYNAMIC_NAMES:
            self.review.append(f"line {node.lineno}: reads {node.id}")

    def visit_Call(self, node):
        func = self.dotted(node.func) or ""
        if func in DYNAMIC_CALLS or func.startswith("builtins.") or func.split(".")[-1] in ("get_ipython", "__import__"):
            self.review.append(f"line {node.lineno}: calls {func}()")
        if func in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                base = self.dotted(node.args[0])
                self.uses.append(Use(f"{base}.{name.value}" if base else f".{name.value}", node.lineno))
                self.uses.append(Use(f".{name.value}", node.lineno))
                if func != "getattr" and (base or "").split(".")[0] in PATCHED_MODULES:
                    self.review.append(f"line {node.lineno}: {func} on {base}")
            else:
                self.review.append(f"line {node.lineno}: {func}() with a computed name")
        self.generic_visit(node)


def _resolve(source: str) -> _Resolver:
    resolver = _Resolver()
    resolver.visit(parse(source))
    return resolver


def _matches(use: str, entry: str) -> bool:
    if entry.startswith("."):
        return use == entry
    return use == entry or use.startswith(entry + ".")


def forbidden_uses(source: str, forbid: list) -> list[str]:
    """Each forbidden entry ``source`` uses, as "torch.logsumexp (line 3)", in order of first use.
    Raises AnswerSyntaxError when the cell does not parse."""
    found = {}
    for use in _resolve(source).uses:
        for entry in forbid:
            if _matches(use.name, entry) and entry not in found:
                found[entry] = f"{entry.lstrip('.')} (line {use.line})"
    return list(found.values())


def dynamic_lookups(source: str) -> list[str]:
    """What in ``source`` looks code up dynamically or patches shared modules, for review."""
    resolver = _Resolver()
    try:
        tree = parse(source)
    except AnswerSyntaxError:
        return []
    resolver.visit(tree)
    for use in resolver.uses:
        if use.name.split(".")[0] in DYNAMIC_MODULES:
            resolver.review.append(f"line {use.line}: uses {use.name.split('.')[0]}")
    return list(dict.fromkeys(resolver.review))
