"""What a person should read: code that looks things up dynamically or patches shared modules, in
any cell the learner wrote; listed, never scored.
"""
import ast

from fplab.rules.aliases import Aliases
from fplab.rules.cells import ipython_tree


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


class _Resolver(Aliases):
    """Collects dynamic lookups and patching for review, through ``import`` aliases."""

    def __init__(self):
        super().__init__()
        self.uses: list = []  # (dotted name, line)
        self.review: list = []  # (line, what)

    def visit_Import(self, node):
        super().visit_Import(node)
        self.uses += [(alias.name, node.lineno) for alias in node.names]

    def visit_ImportFrom(self, node):
        super().visit_ImportFrom(node)
        if any(alias.name == "*" for alias in node.names):
            self.review.append((node.lineno, f"`from {node.module} import *`"))
        self.uses += [(node.module or "", node.lineno)] * len(node.names)

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
            self.uses.append((self.dotted(node), node.lineno))
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
    resolver = _Resolver()
    try:
        tree = ipython_tree(source)
    except SyntaxError:
        return []
    resolver.visit(tree)
    for name, line in resolver.uses:
        if name.split(".")[0] in DYNAMIC_MODULES:
            resolver.review.append((line, f"uses {name.split('.')[0]}"))
    return list(dict.fromkeys(resolver.review))
