"""Cells that could rebind names where the checker cannot follow (``exec``, ``globals()``,
``setattr``, assigning to an attribute of a module): each costs every rule-bearing exercise.
"""
import ast
import types

from fplab.rules.aliases import attribute_chain, imported
from fplab.rules.allowlist import PRIMITIVES, object_at
from fplab.rules.cells import short


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


def rebinding_problems(cells, imports=None, protected=frozenset()) -> list:
    """Code in any cell the learner wrote that could rebind what a graded function calls in a way
    the grader cannot follow: exec/eval/globals()/setattr, ``getattr`` with a computed or dunder
    name, an unknown magic, a module such as builtins or importlib, an assignment to an attribute
    of a module (``torch.exp = ...``, unless it sets a switch: a bool, number or string) or to an
    attribute named like something a rule allows (``T.sum = ...``: ``protected``), a dunder.
    ``imports``: the notebook's own import aliases (:func:`~fplab.rules.cells.released_imports`)."""
    found = []
    for cell in cells:
        if cell.tree is None:
            continue
        aliases = {name: sorted(paths)[0] for name, paths in (imports or {}).items()}
        for node in ast.walk(cell.tree):
            for name, dotted in imported(node):
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
                report(node, f"calls `{short(node.func)}`, which changes what the functions you may call return")
            elif isinstance(node, ast.Call) and _root_alias(node.func, aliases) and \
                    ".".join(_chain(node.func, aliases)) in PICKLE_LOADS and not _safe_load(node, aliases):
                keyword, safe = PICKLE_LOADS[".".join(_chain(node.func, aliases))]
                report(node, f"calls `{short(node.func)}` without {keyword}={safe}: loading a pickle runs code "
                             "the grader cannot read")
            elif isinstance(node, ast.Attribute) and node.attr in IMPORT_PATHS and _root_alias(node, aliases) and \
                    _chain(node, aliases)[:2] == ["sys", node.attr]:
                report(node, f"uses `{short(node)}`, which changes where imports come from")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and \
                    _root_alias(node, aliases) and not _switch(node, aliases):
                report(node, f"assigns to `{short(node)}`; the grader cannot tell what that rebinds")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.attr in protected:
                report(node, f"assigns to `{short(node)}`, named like `.{node.attr}`, which an answer may call: the "
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
    """[the module a chain's root name stands for, *its attributes]; the attributes alone on an expression."""
    root, chain = attribute_chain(node)
    return [aliases.get(root.id, root.id), *chain] if isinstance(root, ast.Name) else chain


def _switch(node, aliases) -> bool:
    """True when ``node`` (an attribute store) sets a module attribute that is now a bool, number or
    string (``torch.backends.cuda.matmul.allow_tf32 = True``)."""
    base, chain = attribute_chain(node)
    if not isinstance(base, ast.Name) or base.id not in aliases or not isinstance(node.ctx, ast.Store):
        return False
    owner = object_at(".".join([aliases[base.id], *chain[:-1]]))
    if not isinstance(owner, types.ModuleType):
        return False
    value = getattr(owner, chain[-1], None)  # a module's own property (torch.backends' flags) reads the flag
    return isinstance(value, PRIMITIVES) and value is not None
