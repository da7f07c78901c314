"""Method rules: allowlists judged from the source a learner wrote (trusted side; no kernel).

A result cannot show how it was computed, so where an exercise's text says "write it yourself",
"without X" or "in NumPy", its answer cell in the source notebook declares what the answer may use,
``metadata.finite.allow``, the same entries as the exercise text's "What you may call" list:

- ``torch.exp``, ``numpy.float32``: a dotted name of a module function, class or constant, as
  reached through the learner's imports and aliases (``F.softplus`` is
  ``torch.nn.functional.softplus``); ``math``: any public name of that module;
- ``.exp``, ``.shape``: an attribute of a value (a method such as ``z.exp()``);
- ``float``: a builtin beyond :data:`DEFAULT_BUILTINS`.

The rule fails closed. The grader reads every cell the learner wrote (answer cells and code cells
that differ from the release) and judges the graded name's every definition, and everything they
use that the learner defined (in any of those cells), transitively. Anything it cannot resolve to an
allowed name (a computed lookup, a string-to-callable resolver, an op registry, a compiler entry
point, a builtin passed as a value, a dunder attribute, a module the rule does not list) costs the
exercise, as does a cell that could rebind names in a way the grader cannot follow (``exec``,
``globals()``, ``setattr``, assigning to an attribute of a module or an object).

Code that looks things up dynamically anywhere else is listed for the instructor to review
(:func:`dynamic_lookups`), never scored.
"""
import ast
import builtins
import hashlib
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
# Where a call is a lookup the grader cannot follow (the message says so rather than "not listed").
CANNOT_TELL = ("getattr", "setattr", "delattr", "hasattr", "eval", "exec", "compile", "__import__", "vars",
               "globals", "locals", "type", "super", "map", "filter", "functools", "operator", "pkgutil",
               "pydoc", "importlib", "timeit", "runpy", "code", "pickle", "marshal", "ctypes", "inspect",
               "torch.ops", "torch._C", "torch.jit", "torch.compile", "torch._dynamo", "torch.fx",
               "torch.library", "torch.hub", "numpy.vectorize", "numpy.frompyfunc")
# Magics whose argument is Python run in the learner's namespace (judged as code), and magics that
# cannot rebind a name there (ignored). Any other magic costs the rule-bearing exercises.
CODE_MAGICS = {"time", "timeit", "capture", "prun"}
HARMLESS_MAGICS = {"matplotlib", "pip", "conda", "bash", "sh", "env", "who", "whos", "pwd",
                   "ls", "html", "markdown", "latex", "svg", "system", "getoutput"}  # not writefile, load_ext: code from data
# Review only (never scored): dynamic lookups and patching anywhere the learner wrote.
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
# Names and modules whose use in any cell the learner wrote could rebind what a graded function calls.
REBINDING_NAMES = {"exec", "eval", "compile", "globals", "locals", "vars", "setattr", "delattr",
                   "__import__", "get_ipython", "__builtins__", "breakpoint"}
# Calls that change what an allowed function returns for every later call (a wider default dtype).
REBINDING_CALLS = ("torch.set_default_dtype", "torch.set_default_tensor_type", "numpy.seterr")
REBINDING_MODULES = ("builtins", "__main__", "importlib", "ctypes", "gc", "unittest.mock", "mock", "runpy", "code",
                     "IPython", "copyreg", "pickle", "marshal", "dill", "shelve", "operator", "site", "zipimport",
                     "imp")
# Loads that run code from data (a pickle's REDUCE), unless told not to: {call: (keyword, its safe value)}.
PICKLE_LOADS = {"torch.load": ("weights_only", True), "torch.serialization.load": ("weights_only", True),
                "numpy.load": ("allow_pickle", False)}
IMPORT_PATHS = {"path", "meta_path", "path_hooks", "path_importer_cache"}  # sys's: where imports come from
REBINDING_ATTRIBUTES = {"modules", "f_globals", "settrace", "setprofile", "user_ns", "user_global_ns"}
READ_ONLY = {"items", "keys", "values", "get", "copy"}  # what reading a frame's f_locals may do
SAFE_DUNDERS = {"__name__", "__doc__", "__qualname__", "__version__", "__init__"}
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


# The syntax the rule walks child by child (their parts are judged as they are); anything else it
# does not handle explicitly fails closed. Class patterns, annotations, decorators, defaults, class
# bodies, comprehensions and lambdas are handled on their own (see _Scope).
WALKED_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.Return, ast.Delete, ast.If, ast.For, ast.AsyncFor,
                     ast.While, ast.With, ast.AsyncWith, ast.Match, ast.Try, ast.TryStar, ast.Assert)
WALKED_EXPRESSIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Dict, ast.Set, ast.List,
                      ast.Tuple, ast.Subscript, ast.Slice, ast.Starred, ast.JoinedStr, ast.FormattedValue, ast.Await,
                      ast.Yield, ast.YieldFrom)
OPERATORS = (ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context)
SELF_MATCHING = {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}


class AnswerSyntaxError(Exception):
    """An answer cell that is not valid Python (after IPython's own transformations)."""


def _magic(node):
    """(kind, magic name, arguments) of a call IPython made of a magic or ``!`` line, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython" and not node.func.value.args):
        return None
    args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
    if node.func.attr in ("system", "getoutput"):
        return "shell", node.func.attr, args
    if node.func.attr in ("run_line_magic", "run_cell_magic") and args and args[0]:
        return node.func.attr, args[0], args[1:]
    return None


def _magic_code(name, args) -> list | None:
    """The statements a code magic runs, or None when they cannot be read."""
    statements = []
    for text in args:
        if text is None:
            return None
        words = text.split(" ")
        for start in range(min(len(words), 8) + 1):  # options first (-n 10 -r 3): drop words until it parses
            try:
                statements += ast.parse(" ".join(words[start:]).strip() or "pass").body
                break
            except SyntaxError:
                continue
        else:
            return None
    return statements


class _Magics(ast.NodeTransformer):
    """Replaces a magic statement by the code it runs (time, timeit, ...) or by ``pass`` when it
    cannot rebind a name (a shell line, ``%matplotlib``); any other magic stays a ``get_ipython()``
    call, which the rules cannot resolve."""

    def _replace(self, node, call):
        found = _magic(call)
        if found is None:
            return None
        kind, name, args = found
        if kind == "shell" or name in HARMLESS_MAGICS:
            return [ast.copy_location(ast.Pass(), node)]
        if name in CODE_MAGICS:
            code = _magic_code(name, args if kind == "run_cell_magic" and name != "capture" else args[-1:])
            if code is not None:
                for statement in code:
                    for child in ast.walk(statement):
                        if "lineno" in child._attributes:
                            child.lineno, child.end_lineno = node.lineno, node.end_lineno
                            child.col_offset, child.end_col_offset = 0, 0
                return code or [ast.copy_location(ast.Pass(), node)]
        return None

    def visit_Expr(self, node):
        return self._replace(node, node.value) or node

    def visit_Assign(self, node):
        replaced = self._replace(node, node.value)
        if replaced is None:
            return node
        node.value = ast.copy_location(ast.Constant(None), node.value)
        return [node, *[s for s in replaced if not isinstance(s, ast.Pass)]]


def parse(source: str) -> ast.Module:
    """The AST of a cell as IPython would run it (magics become calls, or the code they run)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        tree = ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError as error:
        raise AnswerSyntaxError(f"line {error.lineno}: {error.msg}") from None
    return ast.fix_missing_locations(_Magics().visit(tree))


@lru_cache(maxsize=4096)
def _object(dotted: str):
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
                    not any(_has_attribute(_object(t), name) for t in METHOD_TYPES) and \
                    not any(hasattr(t, name) for t in (float, int, str, list, tuple, dict, set)):
                bad.append(entry)
        elif "." not in entry:
            if not (hasattr(builtins, entry) or entry in IMPORTABLE) or entry.startswith("_"):
                bad.append(entry)
        elif entry.split(".")[0] not in IMPORTABLE or _object(entry) is None:
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
            value = _object(entry)
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
            value = _object(entry)
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
        if head in self.names and isinstance(_object(head), types.ModuleType) and not tail.startswith("_"):
            return True
        value = _object(dotted)
        return value is not None and not isinstance(value, PRIMITIVES) and id(value) in self.identities \
            and self.identities[id(value)][1] is value

    def leads_to_entry(self, dotted: str) -> bool:
        """True when a dotted name is a module on the way to an entry (``torch.nn`` for
        ``torch.nn.functional.softplus``)."""
        return any(name.startswith(dotted + ".") or name == dotted for name in self.names) \
            and isinstance(_object(dotted), types.ModuleType)


@lru_cache(maxsize=64)
def _rule(entries: tuple) -> Rule:
    return Rule._build(entries)


@dataclass
class Cell:
    """A code cell the learner wrote (an answer cell, or a cell that differs from the release)."""

    label: str
    source: str
    tree: ast.Module | None  # None when it does not parse

    @cached_property
    def bindings(self) -> tuple:
        """The module-level names each top-level statement can bind (:func:`_module_bindings`)."""
        return _tree_bindings(self.tree) if self.tree is not None else ()


def _module_bindings(statement) -> set:
    """The module-level names a top-level statement can bind, however deep (``if``/``for``/``try``/
    ``with`` blocks, ``global`` inside a function, a walrus, a ``match`` capture)."""
    names = set()

    def walk(node, module_scope, declared):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if module_scope or node.name in declared:
                names.add(node.name)
            for decorator in node.decorator_list:
                walk(decorator, module_scope, declared)
            inner = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
            for child in node.body:
                walk(child, False, inner)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and \
                (module_scope or node.id in declared):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and (module_scope or declared):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if module_scope or bound in declared:
                    names.add(bound)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name and (module_scope or node.name in declared):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name and (module_scope or node.name in declared):
            names.add(node.name)
        for child in ast.iter_child_nodes(node):
            walk(child, module_scope, declared)

    walk(statement, True, set())
    return names


@lru_cache(maxsize=256)
def parse_released(source: str) -> ast.Module:
    """:func:`parse` of one of the release's cells, the same in every submission: parsed once per
    process (a learner's cells are parsed afresh; nothing of theirs is kept). The tree is shared:
    callers only read it."""
    return parse(source)


def _tree_bindings(tree: ast.Module) -> tuple:
    """:func:`_module_bindings` of each top-level statement of a parsed cell."""
    return tuple(frozenset(_module_bindings(statement)) for statement in tree.body)


def student_cells(nb, released_code) -> list:
    """Every code cell the learner wrote: answer cells, and unlocked code cells whose source is not
    one of the release's."""
    cells = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("locked") or (
                not meta.get("solution") and cell.source in released_code):
            continue
        try:
            tree = parse(cell.source)
        except AnswerSyntaxError:
            tree = None
        cells.append(Cell(meta.get("grade_id") if meta.get("solution") else f"cell {index + 1}", cell.source, tree))
    return cells


def released_imports(nb, released_code) -> dict:
    """{name: {dotted module paths}} bound by imports in the notebook's own (unchanged) code cells."""
    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("solution") or \
                cell.source not in released_code:
            continue
        try:
            imports = _cell_imports(cell.source)
        except AnswerSyntaxError:
            continue
        for name, dotted in imports:
            found.setdefault(name, set()).add(dotted)
    return found


@lru_cache(maxsize=1024)
def _cell_imports(source: str) -> tuple:
    """:func:`_imported` of every import anywhere in a cell that parses (the release's cells are
    the same in every submission: walked once)."""
    return tuple(pair for node in ast.walk(parse_released(source)) for pair in _imported(node))


def released_names(nb, released_code) -> set:
    """Names the notebook's own (unchanged) cells bind by anything but an import."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader", {}).get("solution") and \
                cell.source in released_code:
            try:
                tree = parse_released(cell.source)
            except AnswerSyntaxError:
                continue
            for statement, names in zip(tree.body, _tree_bindings(tree)):
                if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                    found |= names
    return found


def _imported(node) -> list:
    """[(bound name, dotted path)] of an import statement."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0]) for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
    return []


def _short(node, limit=40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _cannot_tell(dotted: str) -> bool:
    return any(dotted == p or dotted.startswith(p + ".") for p in CANNOT_TELL)


class _Judge:
    """Judges the code that defines one graded name against a :class:`Rule`."""

    def __init__(self, cells, imports, notebook_names, rule: Rule):
        self.cells, self.imports, self.notebook_names, self.rule = cells, imports, notebook_names, rule
        self.bindings = {}  # module-level name -> [(cell, statement)] in the learner's cells
        for cell in cells:
            for statement, names in zip(cell.tree.body if cell.tree else [], cell.bindings):
                for name in names:
                    self.bindings.setdefault(name, []).append((cell, statement))
        self.problems, self.queue, self.seen = [], [], set()
        self.class_attributes = {}  # id(class node) -> attribute names it binds (read on `self`)

    def problem(self, cell, node, text):
        where = "" if cell.label is None else f"{cell.label}, "
        self.problems.append(f"{where}line {getattr(node, 'lineno', '?')}: {text}")

    def include(self, cell, statement):
        if id(statement) not in self.seen:
            self.seen.add(id(statement))
            self.queue.append((cell, statement))

    def run(self, answer_cell, graded: str) -> list:
        for statement in answer_cell.tree.body:
            self.include(answer_cell, statement)
        for cell, statement in self.bindings.get(graded, []):
            self.include(cell, statement)
        done = 0
        while done < len(self.queue):
            cell, statement = self.queue[done]
            done += 1
            _Scope(self, cell, None).statement(statement)
        return list(dict.fromkeys(self.problems))

    def global_name(self, cell, node, name) -> set:
        """What a module-level name may be: {"value"} and/or {"module:<dotted>"}; queues the
        learner's statements that bind it; reports a name nothing resolves."""
        kinds = set()
        for dotted in self.imports.get(name, ()):
            kinds.add(f"module:{dotted}")
        for owner, statement in self.bindings.get(name, []):
            self.include(owner, statement)
            imported = [d for n, d in _imported(statement) if n == name] if \
                isinstance(statement, (ast.Import, ast.ImportFrom)) else []
            kinds |= {f"module:{d}" for d in imported} or {"value"}
            if isinstance(statement, ast.ClassDef) and statement.name == name:
                kinds.add("class")
        if name in self.notebook_names:
            kinds.add("notebook")
        if not kinds:
            kinds.add("builtin" if hasattr(builtins, name) else "unknown")
        return kinds


def _outermost_names(node) -> list:
    """The names and dotted names in an expression that are not part of a longer dotted name."""
    inner = {id(child.value) for child in ast.walk(node) if isinstance(child, ast.Attribute)}
    return [child for child in ast.walk(node) if isinstance(child, (ast.Name, ast.Attribute)) and id(child) not in inner
            and _dotted_base(child)]


def _dotted_base(node) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _class_attributes(node: ast.ClassDef) -> set:
    names = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
            names.add(child.id)  # class attributes (and locals: harmless, they are the learner's names)
        if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Store) and \
                isinstance(child.value, ast.Name) and child.value.id == "self":
            names.add(child.attr)
    return {n for n in names if not (n.startswith("__") and n.endswith("__"))}


def _function_locals(node) -> tuple:
    """(locals, globals declared) of a function or lambda, without entering nested scopes."""
    arguments = node.args
    params = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    params += [a.arg for a in (arguments.vararg, arguments.kwarg) if a]
    if isinstance(node, ast.Lambda):
        return set(params), set()
    declared, bound = set(), set(params)

    def walk(child):
        if isinstance(child, ast.Global):
            declared.update(child.names)
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(child.name)
            return
        if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            bound.add(child.id)
        if isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
            bound.add(child.name)
        if isinstance(child, ast.ExceptHandler) and child.name:
            bound.add(child.name)
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            bound.update(alias.asname or alias.name.split(".")[0] for alias in child.names)
        for grandchild in ast.iter_child_nodes(child):
            walk(grandchild)

    for statement in node.body:
        walk(statement)
    return bound - declared, declared


class _Scope:
    """One scope (module, function, class, lambda or comprehension) of the code being judged."""

    def __init__(self, judge, cell, parent, names=None, self_name=None, kind="module"):
        self.judge, self.cell, self.parent = judge, cell, parent
        self.names = names or {}  # name -> set of kinds ("value", "module:<dotted>", "self:<class id>")
        self.self_name, self.kind = self_name, kind
        self.class_key = None  # in a class scope: the key of its attributes in the judge

    # --- helpers -----------------------------------------------------------------------------
    def problem(self, node, text):
        self.judge.problem(self.cell, node, text)

    def lookup(self, node, name) -> set:
        scope = self
        while scope is not None:
            if name in scope.names and (scope is self or scope.kind != "class"):
                return scope.names[name]
            scope = scope.parent
        return self.judge.global_name(self.cell, node, name)

    def bind_imports(self, node):
        for alias in node.names:
            if alias.name == "*":
                self.problem(node, f"`from {node.module} import *` binds names the grader cannot tell; "
                                   "import each name you use")
                continue
        if isinstance(node, ast.ImportFrom) and (node.level or not node.module):
            self.problem(node, "a relative import is not on this exercise's list of what you may call")
            return
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            return
        for name, dotted in _imported(node):
            if not (self.judge.rule.allows(dotted) or self.judge.rule.leads_to_entry(dotted)):
                self.problem(node, f"imports `{dotted}`, which is not on this exercise's list (an import runs "
                                   "that module's code: import only what the list names)")
            if self.kind != "module":
                self.names.setdefault(name, set()).add(f"module:{dotted}")

    def not_listed(self, dotted, call=None) -> str:
        if _cannot_tell(dotted):
            shown = f"{dotted}(...)" if call is None else call
            return f"the grader cannot tell what `{shown}` calls; write the call out by name"
        return f"`{dotted}` is not on this exercise's list of what you may call"

    # --- statements ---------------------------------------------------------------------------
    def statement(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node)
        elif isinstance(node, ast.ClassDef):
            self.klass(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.bind_imports(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue)):
            pass
        elif isinstance(node, ast.Raise):
            self.raise_(node)
        elif isinstance(node, ast.AnnAssign):
            self.annotation(node.annotation)
            if node.value is not None:
                self.expression(node.value)
            self.target(node.target)
        elif not isinstance(node, WALKED_STATEMENTS):
            self.problem(node, f"the grader does not judge a `{type(node).__name__}` statement; write it another way")
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.statement(child)
                elif isinstance(child, ast.ExceptHandler):
                    if child.type is not None:
                        self.exception_type(child.type)
                    for inner in child.body:
                        self.statement(inner)
                elif isinstance(child, ast.expr):
                    self.target(child) if isinstance(getattr(child, "ctx", None), (ast.Store, ast.Del)) \
                        else self.expression(child)
                elif isinstance(child, ast.withitem):
                    self.expression(child.context_expr)
                    if child.optional_vars is not None:
                        self.target(child.optional_vars)
                elif isinstance(child, ast.match_case):
                    self.pattern(child.pattern)
                    if child.guard is not None:
                        self.expression(child.guard)
                    for inner in child.body:
                        self.statement(inner)
                elif not isinstance(child, OPERATORS):
                    self.problem(node, f"the grader does not judge `{type(child).__name__}` in a statement")

    def raise_(self, node):
        if node.exc is not None:
            self.expression(node.exc, type_test=isinstance(node.exc, (ast.Name, ast.Attribute)))
        if node.cause is not None:
            self.expression(node.cause, type_test=True)

    def pattern(self, node):
        """A ``case`` pattern: its classes are type tests, its values expressions, and a class pattern
        reads attributes of the subject, by keyword (judged as attribute reads) or by position
        (``__match_args__``: names the grader cannot see, refused but for builtins matching themselves)."""
        for child in ast.walk(node):
            if isinstance(child, ast.MatchClass):
                self.expression(child.cls, type_test=True)
                for attr in child.kwd_attrs:
                    if attr.startswith("__") and attr.endswith("__"):
                        self.problem(child, f"the grader cannot tell what `{attr}=` in a class pattern reaches "
                                            "(a dunder attribute)")
                    else:
                        self.methods(child, [attr])
                if child.patterns and not (isinstance(child.cls, ast.Name) and child.cls.id in SELF_MATCHING
                                           and self.lookup(child.cls, child.cls.id) == {"builtin"}):
                    self.problem(child, f"the class pattern `{_short(child)}` reads attributes by position, which the "
                                        "grader cannot tell; match them by keyword")
            elif isinstance(child, ast.MatchValue):
                self.expression(child.value)
            elif isinstance(child, ast.MatchMapping):
                for key in child.keys:
                    self.expression(key)

    def exception_type(self, node):
        for item in (node.elts if isinstance(node, ast.Tuple) else [node]):
            self.expression(item, type_test=True)

    def annotation(self, node):
        """An annotation is evaluated but only read: names and attributes, never a call."""
        for child in ast.walk(node):
            if not isinstance(child, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple,
                                      ast.List, ast.BinOp, ast.BitOr, ast.Load, ast.expr_context)):
                self.problem(node, f"the annotation `{_short(node)}` does more than name a type")
                return
            if isinstance(child, ast.Attribute) and child.attr.startswith("__"):
                self.problem(node, f"the annotation `{_short(node)}` reads a dunder attribute")
                return
        for part in _outermost_names(node):
            if not self.names_a_type(part):
                self.expression(part, type_test=True)

    def names_a_type(self, node) -> bool:
        """Whether a name or dotted name in an annotation is a class (or a ``typing`` form): evaluated,
        it looks a type up and calls nothing."""
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.insert(0, base.attr)
            base = base.value
        kinds = self.lookup(base, base.id)
        if "class" in kinds and not chain:
            return True
        if kinds == {"builtin"} and not chain:
            return isinstance(getattr(builtins, base.id), type)
        modules = [k.removeprefix("module:") for k in kinds if k.startswith("module:")]
        values = [_object(".".join([m, *chain])) for m in modules]
        return bool(modules) and len(modules) == len(kinds) and all(
            isinstance(v, type) or (v is not None and type(v).__module__ == "typing") for v in values)

    def arguments(self, node):
        arguments = node.args
        for default in arguments.defaults + [d for d in arguments.kw_defaults if d is not None]:
            self.expression(default)
        if not isinstance(node, ast.Lambda):
            for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + \
                    [a for a in (arguments.vararg, arguments.kwarg) if a]:
                if arg.annotation is not None:
                    self.annotation(arg.annotation)
            if node.returns is not None:
                self.annotation(node.returns)

    def function(self, node):
        for decorator in node.decorator_list:
            self.expression(decorator, as_decorator=True)
        self.arguments(node)
        local, _ = _function_locals(node)
        names = {n: {"value"} for n in local}
        self_name = None
        if self.kind == "class":
            first = (node.args.posonlyargs + node.args.args)[:1]
            reassigned = any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and first and n.id == first[0].arg
                             for n in ast.walk(node))
            if first and not reassigned and not any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                                    for d in node.decorator_list):
                self_name = first[0].arg
                names[self_name] = {f"self:{self.class_key}"}
        if self.kind != "class":
            self.bind(node.name)
        else:
            self.names.setdefault(node.name, {"value"})
        inner = _Scope(self.judge, self.cell, self, names, self_name, "function")
        for statement in node.body:
            inner.statement(statement)

    def klass(self, node):
        for decorator in node.decorator_list:
            self.expression(decorator, as_decorator=True)
        for base in node.bases:
            self.expression(base, as_type=True)
        for keyword in node.keywords:
            self.problem(keyword, f"the class keyword `{keyword.arg}=` is not on this exercise's list")
        if self.kind != "module":
            self.names[node.name] = {"value", "class"}
        inner = _Scope(self.judge, self.cell, self, {}, None, "class")
        inner.class_key = id(node)
        self.judge.class_attributes[id(node)] = _class_attributes(node)
        for statement in node.body:
            inner.statement(statement)

    def bind(self, name):
        if self.kind != "module":
            self.names.setdefault(name, {"value"})

    def target(self, node):
        if isinstance(node, ast.Name):
            self.bind(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Starred):
            self.target(node.value)
        elif isinstance(node, ast.Subscript):
            self.expression(node.value)
            self.expression(node.slice)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and any(k.startswith("self:") for k in self.lookup(node.value, node.value.id)) \
                    and not node.attr.startswith("__"):
                return
            self.problem(node, f"the grader cannot tell what assigning to `{_short(node)}` changes; "
                               "only attributes of `self` may be set")

    # --- expressions --------------------------------------------------------------------------
    def expression(self, node, as_type=False, as_decorator=False, call=None, type_test=False):
        """Judge an expression; ``as_type``/``as_decorator``: a builtin may appear as a value there
        (a class base, a decorator); ``type_test``: any builtin class may (``isinstance``, ``except``);
        ``call``: the Call node whose callee this is."""
        if isinstance(node, ast.Name):
            return self.name(node, as_type or as_decorator or type_test or call is not None, call, type_test)
        if isinstance(node, ast.Tuple) and type_test:
            for element in node.elts:
                self.expression(element, type_test=True)
            return None
        if isinstance(node, ast.Attribute):
            return self.attribute(node, call)
        if isinstance(node, ast.Call):
            self.expression(node.func, call=node)
            for index, arg in enumerate(node.args):
                type_test = index == 1 and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass")
                self.expression(arg, type_test=type_test)
                self.dtype_string(arg)
            for keyword in node.keywords:
                self.expression(keyword.value)
                self.dtype_string(keyword.value)
            return None
        if isinstance(node, ast.Lambda):
            self.arguments(node)
            local, _ = _function_locals(node)
            inner = _Scope(self.judge, self.cell, self, {n: {"value"} for n in local}, None, "function")
            inner.expression(node.body)
            return None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = _Scope(self.judge, self.cell, self, {}, None, "function")
            for generator in node.generators:
                (inner if generator is not node.generators[0] else self).expression(generator.iter)
                for name in ast.walk(generator.target):
                    if isinstance(name, ast.Name):
                        inner.names[name.id] = {"value"}
                inner.target(generator.target)
                for condition in generator.ifs:
                    inner.expression(condition)
            for part in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                inner.expression(part)
            return None
        if isinstance(node, ast.NamedExpr):
            self.expression(node.value)
            self.target(node.target)
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, complex) and "complex" not in self.judge.rule.builtins:
                self.problem(node, f"the complex number `{_short(node)}` is not on this exercise's list")
            return None
        if not isinstance(node, WALKED_EXPRESSIONS):
            self.problem(node, f"the grader does not judge `{type(node).__name__}` expressions; write it another way")
            return None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child)
            elif isinstance(child, ast.keyword):
                self.expression(child.value)
            elif not isinstance(child, OPERATORS):
                self.problem(node, f"the grader does not judge `{type(child).__name__}` in an expression")
        return None

    def dtype_string(self, node):
        """A string or bytes that NumPy reads as a float, complex or object type not on the list."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and len(node.value) <= 24):
            return
        import numpy

        try:
            dtype = numpy.dtype(node.value)
        except Exception:
            return
        if dtype.kind in "fcO" and dtype not in self.judge.rule.dtypes:
            self.problem(node, f"the string {node.value!r} names the type {dtype}, which is not on this "
                               "exercise's list")

    def name(self, node, positioned, call, type_test=False):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.bind(node.id)
            return
        if node.id.startswith("__") and node.id.endswith("__") and node.id != "__name__":
            self.problem(node, f"the grader cannot tell what `{node.id}` reaches")
            return
        kinds = self.lookup(node, node.id)
        if "class" in kinds and not positioned:
            self.problem(node, f"the class `{node.id}` is passed as a value; make an instance of it")
            return
        for kind in kinds:
            if kind.startswith("module:"):
                self.dotted(node, kind.removeprefix("module:"), [], call)
            elif kind == "notebook":
                self.problem(node, f"`{node.id}` is the notebook's own, not on this exercise's list of what you may call")
            elif kind == "unknown":
                self.problem(node, f"the grader cannot tell what `{node.id}` is; bind it in a cell you wrote")
            elif kind == "builtin":
                if type_test and isinstance(getattr(builtins, node.id), type):
                    continue  # isinstance(x, float) makes no float
                if node.id not in self.judge.rule.builtins:
                    shown = f"{node.id}({_short(call.args[0], 20) + ', ...' if call and call.args else '...'})"
                    self.problem(node, f"the grader cannot tell what `{shown}` calls; write the call out by name"
                                 if _cannot_tell(node.id) else
                                 f"`{node.id}` is not on this exercise's list of what you may call")
                elif not positioned and node.id not in ("NotImplemented", "Ellipsis", "__name__") and \
                        node.id not in EXCEPTIONS:
                    self.problem(node, f"the builtin `{node.id}` is passed as a value; call it by name")

    def attribute(self, node, call):
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.insert(0, base.attr)
            base = base.value
        for attr in chain:
            if attr.startswith("__") and attr.endswith("__"):
                self.problem(node, f"the grader cannot tell what `.{attr}` reaches (a dunder attribute)")
                return
        if isinstance(base, ast.Name):
            kinds = self.lookup(base, base.id)
            if "class" in kinds:  # Class.method(x) would run the method with any x as `self`
                self.problem(node, f"`{_short(node)}` reads from the class `{base.id}` itself; call it on an instance")
                return
            for kind in kinds:
                if kind.startswith("module:"):
                    self.dotted(node, kind.removeprefix("module:"), chain, call)
                elif kind.startswith("self:"):
                    own = self.judge.class_attributes[int(kind.removeprefix("self:"))]
                    self.methods(node, chain[1:] if chain[0] in own else chain)
                elif kind in ("value", "class"):
                    self.methods(node, chain)
                else:
                    self.name(base, True, None)
                    if kind == "builtin":
                        self.methods(node, chain)
            return
        self.expression(base)
        self.methods(node, chain)

    def methods(self, node, chain):
        for attr in chain:
            if attr not in self.judge.rule.methods:
                self.problem(node, f"the method or attribute `.{attr}` is not on this exercise's list of what you may call")
                return

    def dotted(self, node, module, chain, call):
        """A name reached from an import: ``module`` (dotted) then the attributes ``chain``."""
        rule, parts = self.judge.rule, module.split(".") + chain
        for cut in range(len(module.split(".")), len(parts) + 1):
            name = ".".join(parts[:cut])
            value = _object(name)
            if isinstance(value, types.ModuleType) and cut < len(parts) and (name in rule.names or rule.leads_to_entry(name)):
                continue  # a module on the way (`torch.nn`), or a whole allowed one (`math`)
            if rule.allows(name):
                if isinstance(value, types.ModuleType) and cut == len(parts):
                    self.problem(node, f"the grader cannot tell what the module `{name}` is used for; "
                                       "call what you need from it by name")
                self.methods(node, parts[cut:])
                return
            if not rule.leads_to_entry(name):
                shown = f"{'.'.join(parts)}({_short(call.args[0], 20) + ', ...' if call and call.args else '...'})"
                self.problem(node, self.not_listed(name, shown if _cannot_tell(name) else None))
                return
        self.problem(node, f"the grader cannot tell what the module `{'.'.join(parts)}` is used for; "
                           "call what you need from it by name")


def judge(cells, imports, notebook_names, graded: str, answer_label: str, allow) -> list:
    """Problems with the code that defines ``graded`` under the allowlist ``allow``, as
    "kahan_sum, line 3: ..." (an empty list when it follows the rule). ``cells``: from
    :func:`student_cells`; ``imports``/``notebook_names``: the notebook's own (unchanged) cells'."""
    answer = next((c for c in cells if c.label == answer_label), None)
    if answer is not None and answer.tree is None:
        return []  # it does not parse: the exercise scores 0 for that (score.method_problems)
    empty = Cell(answer_label, "", ast.Module(body=[], type_ignores=[]))
    return _Judge(cells, imports, notebook_names, Rule.of(allow)).run(answer or empty, graded)


def digest(source: str) -> str:
    """A code cell's fingerprint: the release lists its cells' (``metadata.finite.released_code``) so a
    learner's kernel can tell the release's cells from the learner's without holding the release."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


class ReleasedDigests:
    """The release's code cells as :func:`digest` fingerprints: ``source in released`` as for a set of
    sources (the ``released_code`` :func:`exercise_problems` takes)."""

    def __init__(self, digests):
        self.digests = frozenset(digests)

    def __contains__(self, source) -> bool:
        return isinstance(source, str) and digest(source) in self.digests


def exercise_problems(nb, released_code, rules, tests) -> dict:
    """{test grade_id: why it scores 0} for answer cells that do not parse, and for exercises whose
    method rule (an allowlist) the learner's code breaks: the code that defines the graded name,
    wherever it is, and anything in a cell they wrote that could rebind names unseen. ``released_code``:
    the release's code cells (anything that supports ``in``); ``rules``: {test: (answer, allow)}; ``tests``:
    the test grade ids to judge. The grader calls it outside the kernel with the release's own data; a
    visible test calls it in the kernel (:mod:`fplab.rule_check`) with the learner's notebook's."""
    cells = student_cells(nb, released_code)
    labels = {c.label: c for c in cells}
    imports = released_imports(nb, released_code)
    notebook_names = released_names(nb, released_code)
    protected = frozenset().union(*(Rule.of(allow).protected for _, allow in rules.values()))
    rebinding = rebinding_problems(cells, imports, protected) if rules else []
    problems = {}
    for test in tests:
        answer, allow = rules.get(test, (test.removeprefix("test_"), None))
        if answer in labels:
            try:
                parse(labels[answer].source)
            except AnswerSyntaxError as error:
                problems[test] = f"your answer cell {answer} is not valid Python ({error})"
                continue
        if allow is None:
            continue  # no rule; with the answer cell gone, its test fails on its own
        found = judge(cells, imports, notebook_names, answer, answer, allow) + rebinding
        if found:
            more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
            problems[test] = RULE_PREFIX + "; ".join(found[:3]) + more
    return problems


def rebinding_problems(cells, imports=None, protected=frozenset()) -> list:
    """Code in any cell the learner wrote that could rebind what a graded function calls in a way
    the grader cannot follow: exec/eval/globals()/setattr, ``getattr`` with a computed or dunder
    name, an unknown magic, a module such as builtins or importlib, an assignment to an attribute
    of a module (``torch.exp = ...``, unless it sets a switch: a bool, number or string) or to an
    attribute named like something a rule allows (``T.sum = ...``: ``protected``), a dunder.
    ``imports``: the notebook's own import aliases (:func:`released_imports`)."""
    found = []
    for cell in cells:
        if cell.tree is None:
            continue
        aliases = {name: sorted(paths)[0] for name, paths in (imports or {}).items()}
        for node in ast.walk(cell.tree):
            for name, dotted in _imported(node):
                aliases[name] = dotted
        parents = {id(child): node for node in ast.walk(cell.tree) for child in ast.iter_child_nodes(node)}

        def report(node, text):
            found.append(f"{cell.label}, line {getattr(node, 'lineno', '?')}: {text}")

        for node in ast.walk(cell.tree):
            if isinstance(node, ast.Name) and (node.id in REBINDING_NAMES or (
                    node.id == "getattr" and not _plain_getattr(node, parents))):
                report(node, f"uses `{node.id}`, which could rebind names the grader cannot follow")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    module = (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
                    full = module if isinstance(node, ast.Import) else f"{module}.{alias.name}"
                    if alias.name == "*" or any(full == m or full.startswith(m + ".") or module == m
                                                for m in REBINDING_MODULES):
                        report(node, f"imports `{full}`, which could rebind names the grader cannot follow")
            elif isinstance(node, ast.Attribute) and (node.attr in REBINDING_ATTRIBUTES or (
                    node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in SAFE_DUNDERS)):
                report(node, f"reads `.{node.attr}`, which could rebind names the grader cannot follow")
            elif isinstance(node, ast.Attribute) and node.attr == "f_locals" and not (
                    isinstance(parents.get(id(node)), ast.Attribute) and parents[id(node)].attr in READ_ONLY):
                report(node, "uses `.f_locals` other than to read it, which could rebind names the grader "
                             "cannot follow")
            elif isinstance(node, ast.Call) and _root_alias(node.func, aliases) and \
                    ".".join(_chain(node.func, aliases)) in REBINDING_CALLS:
                report(node, f"calls `{_short(node.func)}`, which changes what the functions you may call return")
            elif isinstance(node, ast.Call) and _root_alias(node.func, aliases) and \
                    ".".join(_chain(node.func, aliases)) in PICKLE_LOADS and not _safe_load(node, aliases):
                keyword, safe = PICKLE_LOADS[".".join(_chain(node.func, aliases))]
                report(node, f"calls `{_short(node.func)}` without {keyword}={safe}: loading a pickle runs code "
                             "the grader cannot read")
            elif isinstance(node, ast.Attribute) and node.attr in IMPORT_PATHS and _root_alias(node, aliases) and \
                    _chain(node, aliases)[:2] == ["sys", node.attr]:
                report(node, f"uses `{_short(node)}`, which changes where imports come from")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and \
                    _root_alias(node, aliases) and not _switch(node, aliases):
                report(node, f"assigns to `{_short(node)}`; the grader cannot tell what that rebinds")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.attr in protected:
                report(node, f"assigns to `{_short(node)}`, named like `.{node.attr}`, which an answer may call: the "
                             "grader cannot tell what that rebinds (give the attribute another name)")
    return list(dict.fromkeys(found))


def _safe_load(call, aliases) -> bool:
    """Whether a pickle-capable load is told not to unpickle (its keyword given the safe constant)."""
    keyword, safe = PICKLE_LOADS[".".join(_chain(call.func, aliases))]
    given = [k.value for k in call.keywords if k.arg == keyword]
    if not given:
        return not safe  # numpy.load's default refuses pickles; torch.load's is the pinned torch's to choose
    return isinstance(given[0], ast.Constant) and given[0].value is safe


def _plain_getattr(node, parents) -> bool:
    """True for ``getattr(x, "name")`` called directly with a literal name that is not a dunder."""
    call = parents.get(id(node))
    if not (isinstance(call, ast.Call) and call.func is node and len(call.args) >= 2):
        return False
    name = call.args[1]
    return isinstance(name, ast.Constant) and isinstance(name.value, str) and not name.value.startswith("__")


def _root_alias(node, aliases) -> bool:
    """True when an attribute chain (through calls and subscripts) starts at an imported module."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in aliases


def _chain(node, aliases) -> list:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    return [aliases.get(node.id, node.id), *parts] if isinstance(node, ast.Name) else parts


def _switch(node, aliases) -> bool:
    """True when ``node`` (an attribute store) sets a module attribute that is now a bool, number or
    string (``torch.backends.cuda.matmul.allow_tf32 = True``)."""
    chain, base = [node.attr], node.value
    while isinstance(base, ast.Attribute):
        chain.insert(0, base.attr)
        base = base.value
    if not isinstance(base, ast.Name) or base.id not in aliases or not isinstance(node.ctx, ast.Store):
        return False
    owner = _object(".".join([aliases[base.id], *chain[:-1]]))
    if not isinstance(owner, types.ModuleType):
        return False
    value = getattr(owner, chain[-1], None)  # a module's own property (torch.backends' flags) reads the flag
    return isinstance(value, PRIMITIVES) and value is not None


def defining_source(nb, released_code, graded: str) -> str:
    """The code that defines ``graded`` as the learner wrote it: their answer cell, followed by
    every other statement of a cell they wrote that binds the name (for the feedback page)."""
    cells = student_cells(nb, released_code)
    answer = next((c for c in cells if c.label == graded), None)
    parts = [answer.source] if answer is not None else []
    for cell in cells:
        if cell is answer or cell.tree is None:
            continue
        for statement, names in zip(cell.tree.body, cell.bindings):
            if graded in names:
                segment = ast.get_source_segment(cell.source, statement) or ast.unparse(statement)
                parts.append(f"# {cell.label} also binds {graded}:\n{segment}")
    return "\n\n".join(parts)


class _Resolver(ast.NodeVisitor):
    """Collects dynamic lookups and patching for review, through ``import`` aliases."""

    def __init__(self):
        self.aliases: dict[str, str] = {}
        self.uses: list = []  # (dotted name, line)
        self.review: list = []  # (line, what)

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
            self.uses.append((alias.name, node.lineno))

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name == "*":
                self.review.append((node.lineno, f"`from {node.module} import *`"))
            else:
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            self.uses.append((node.module or "", node.lineno))

    def visit_Assign(self, node):
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                patched = self.dotted(target.value)
                if patched is None or patched.split(".")[0] in PATCHED_MODULES or patched in self.aliases.values():
                    self.review.append((node.lineno, f"replaces {patched or 'an attribute of an expression'}"
                                                     f".{target.attr}"))
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr in DYNAMIC_ATTRIBUTES:
            self.review.append((node.lineno, f"reads .{node.attr}"))
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.uses.append((self.aliases.get(node.id, node.id), node.lineno))
        if node.id in DYNAMIC_NAMES:
            self.review.append((node.lineno, f"reads {node.id}"))

    def visit_Call(self, node):
        func = self.dotted(node.func) or ""
        if func in DYNAMIC_CALLS or func.startswith("builtins.") or func.split(".")[-1] in ("get_ipython", "__import__"):
            self.review.append((node.lineno, f"calls {func}()"))
        if func in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2:
            name, base = node.args[1], self.dotted(node.args[0])
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.review.append((node.lineno, f"{func}() with a computed name"))
            elif func != "getattr" and (base or "").split(".")[0] in PATCHED_MODULES:
                self.review.append((node.lineno, f"{func} on {base}"))
        self.generic_visit(node)


def dynamic_lookups(source: str) -> list[tuple[int, str]]:
    """[(line, what)]: what in ``source`` looks code up dynamically or patches shared modules, for review."""
    from IPython.core.inputtransformer2 import TransformerManager

    resolver = _Resolver()
    try:
        tree = ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return []
    resolver.visit(tree)
    for name, line in resolver.uses:
        if name.split(".")[0] in DYNAMIC_MODULES:
            resolver.review.append((line, f"uses {name.split('.')[0]}"))
    return list(dict.fromkeys(resolver.review))
