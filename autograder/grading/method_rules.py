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
import importlib
import inspect
import sys
import types
from dataclasses import dataclass

IMPORTABLE = ("fplab", "torch", "numpy", "math")  # packages whose modules a rule may resolve through
PATCHED_MODULES = ("builtins", "fplab", "torch", "numpy", "math", "IPython", "sys", "nbformat", "inspect")
DYNAMIC_CALLS = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars", "get_ipython",
                 "breakpoint"}
DYNAMIC_NAMES = {"In", "Out", "_ih", "_oh", "_ii", "_iii", "__builtins__"}
DYNAMIC_MODULES = ("importlib", "inspect", "linecache", "gc", "ctypes", "dis", "pickle", "marshal", "shelve",
                   "copyreg", "dill", "operator", "traceback", "runpy", "code", "codeop")
DYNAMIC_ATTRIBUTES = {"_getframe", "f_back", "f_locals", "f_globals", "f_code", "tb_frame", "gi_frame",
                      "cr_frame", "__globals__", "__closure__", "__code__", "modules", "__dict__",
                      "__subclasses__", "__builtins__", "co_consts", "__getattribute__", "__getattr__",
                      "__import__", "attrgetter", "methodcaller", "__reduce__", "__reduce_ex__"}


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
        self.strings: list = []  # (text, line) of every string and bytes constant

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
                patched = self.dotted(target.value)
                if patched is None or patched.split(".")[0] in PATCHED_MODULES or patched in self.aliases.values():
                    self.review.append(f"line {node.lineno}: replaces {patched or 'an attribute of an expression'}"
                                       f".{target.attr}")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name = self.dotted(node)
        self.uses.append(Use(name or f".{node.attr}", node.lineno))
        if name:
            self.uses.append(Use(f".{node.attr}", node.lineno))
        if node.attr in DYNAMIC_ATTRIBUTES:
            self.review.append(f"line {node.lineno}: reads .{node.attr}")
        self.generic_visit(node)

    def visit_Expr(self, node):
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):  # a docstring
            self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, (str, bytes)) and 0 < len(node.value) <= 10_000:
            self.strings.append((node.value, node.lineno))

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


def _bound_names(statement) -> set:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in statement.names}
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _with_definitions(tree, context) -> ast.Module:
    """``tree`` preceded by the top-level statements of ``context`` (``[(source, imports only)]``,
    the notebook's other code cells) that bind a name it uses, transitively: a forbidden call moved
    into a helper, another answer cell or an added cell still counts."""
    defining = []
    for source, imports_only in context:
        try:
            module = parse(source)
        except AnswerSyntaxError:
            continue
        defining += [(st, _bound_names(st)) for st in module.body
                     if not imports_only or isinstance(st, (ast.Import, ast.ImportFrom))]
    needed = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    included, grew = [], True
    while grew:
        grew = False
        for statement, names in defining:
            if names & needed and not any(statement is s for s in included):
                included.append(statement)
                needed |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
                grew = True
    order = {id(st): i for i, (st, _) in enumerate(defining)}
    return ast.Module(body=sorted(included, key=lambda st: order[id(st)]) + tree.body, type_ignores=[])


def _resolve(source: str, context=()) -> _Resolver:
    resolver = _Resolver()
    resolver.visit(_with_definitions(parse(source), context))
    return resolver


def _object(dotted: str):
    """(the object a dotted name names, the names of the modules passed on the way); (None, [])
    when it names nothing known. Only the course's own packages are imported for this (the
    learner chooses the names): anything else counts only if this process imported it already."""
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
        value, passed = module, [module.__name__]
        for part in parts[cut:]:
            try:
                value = inspect.getattr_static(value, part)
            except AttributeError:
                return None, []
            if isinstance(value, types.ModuleType):
                passed.append(value.__name__)
        return value, passed
    return None, []


def _matches(use: str, entry: str) -> bool:
    if entry.startswith("."):
        return use == entry
    if use == entry or use.startswith(entry + "."):
        return True
    target, _ = _object(entry)
    if target is None or use.startswith("."):
        return False
    value, passed = _object(use)
    if isinstance(target, types.ModuleType):
        return any(name == target.__name__ or name.startswith(target.__name__ + ".") for name in passed)
    return value is not None and value is target


def _named_in_string(value, entry: str) -> bool:
    """A string that is the forbidden name (a lookup by name: ``getattr``, ``attrgetter``,
    ``__getattribute__``), or bytes that hold it (a pickle)."""
    dotted = entry.lstrip(".")
    last = dotted.rsplit(".", 1)[-1]
    if isinstance(value, bytes):
        return len(last) > 3 and last.encode() in value
    return value.strip() in (last, dotted)


def forbidden_uses(source: str, forbid: list, context=()) -> list[str]:
    """Each forbidden entry ``source`` uses, as "torch.logsumexp (line 3)", in order of first use:
    by name through imports and aliases, by identity through re-exports (``fplab.observe.torch``),
    in the definitions it takes from ``context`` (the notebook's other code cells, see
    :func:`_with_definitions`), or spelled in a string. Raises AnswerSyntaxError when the cell
    does not parse."""
    resolver, found = _resolve(source, context), {}
    for use in resolver.uses:
        for entry in forbid:
            if entry not in found and _matches(use.name, entry):
                found[entry] = f"{entry.lstrip('.')} (line {use.line})"
    for text, line in resolver.strings:
        for entry in forbid:
            if entry not in found and not isinstance(_object(entry)[0], types.ModuleType) and \
                    _named_in_string(text, entry):
                found[entry] = f"{entry.lstrip('.')} (named in a string, line {line})"
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
