"""One scope of the code the checker reads (the module, a function, a class, a lambda or a
comprehension), walked statement by statement and expression by expression against the exercise's
:class:`~fplab.rules.allowlist.Rule`; what it cannot resolve is a problem.
"""
import ast
import builtins
import types

from fplab.rules.aliases import attribute_chain, imported
from fplab.rules.allowlist import EXCEPTIONS, object_at
from fplab.rules.cells import short


# Where a call is a lookup the grader cannot follow (the message says so rather than "not listed").
CANNOT_TELL = ("getattr", "setattr", "delattr", "hasattr", "eval", "exec", "compile", "__import__", "vars",
               "globals", "locals", "type", "super", "map", "filter", "functools", "operator", "pkgutil",
               "pydoc", "importlib", "timeit", "runpy", "code", "pickle", "marshal", "ctypes", "inspect",
               "torch.ops", "torch._C", "torch.jit", "torch.compile", "torch._dynamo", "torch.fx",
               "torch.library", "torch.hub", "numpy.vectorize", "numpy.frompyfunc")
# The syntax the rule walks child by child (their parts are checked as they are); anything else it
# does not handle explicitly fails closed. Class patterns, annotations, decorators, defaults, class
# bodies, comprehensions and lambdas are handled on their own (see :class:`Scope`).
WALKED_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.Return, ast.Delete, ast.If, ast.For, ast.AsyncFor,
                     ast.While, ast.With, ast.AsyncWith, ast.Match, ast.Try, ast.TryStar, ast.Assert)
WALKED_EXPRESSIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Dict, ast.Set, ast.List,
                      ast.Tuple, ast.Subscript, ast.Slice, ast.Starred, ast.JoinedStr, ast.FormattedValue, ast.Await,
                      ast.Yield, ast.YieldFrom)
OPERATORS = (ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context)
SELF_MATCHING = {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}


def _cannot_tell(dotted: str) -> bool:
    """Whether ``dotted`` is a lookup the grader cannot follow (:data:`CANNOT_TELL`)."""
    return any(dotted == p or dotted.startswith(p + ".") for p in CANNOT_TELL)


def _outermost_names(node) -> list:
    """The names and dotted names in an expression that are not part of a longer dotted name."""
    inner = {id(child.value) for child in ast.walk(node) if isinstance(child, ast.Attribute)}
    return [child for child in ast.walk(node) if isinstance(child, (ast.Name, ast.Attribute)) and id(child) not in inner
            and _dotted_base(child)]


def _dotted_base(node) -> bool:
    return isinstance(attribute_chain(node)[0], ast.Name)


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


class Scope:
    """One scope (module, function, class, lambda or comprehension) of the code being checked."""

    def __init__(self, checker, cell, parent=None, *, kind="module", names=None, self_name=None):
        self.checker, self.cell, self.parent = checker, cell, parent
        self.names = names or {}  # name -> set of kinds ("value", "module:<dotted>", "self:<class id>")
        self.self_name, self.kind = self_name, kind
        self.class_key = None  # in a class scope: the key of its attributes in the checker

    # --- helpers -----------------------------------------------------------------------------
    def nested(self, kind, names=None, self_name=None) -> "Scope":
        """A scope inside this one: a function's, a class's, a lambda's or a comprehension's."""
        return Scope(self.checker, self.cell, self, kind=kind, names=names, self_name=self_name)

    def problem(self, node, text):
        self.checker.problem(self.cell, node, text)

    def lookup(self, node, name) -> set:
        scope = self
        while scope is not None:
            if name in scope.names and (scope is self or scope.kind != "class"):
                return scope.names[name]
            scope = scope.parent
        return self.checker.global_name(self.cell, node, name)

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
        for name, dotted in imported(node):
            if not (self.checker.rule.allows(dotted) or self.checker.rule.leads_to_entry(dotted)):
                self.problem(node, f"imports `{dotted}`, which is not on this exercise's list (an import runs "
                                   "that module's code: import only what the list names)")
            if self.kind != "module":
                self.names.setdefault(name, set()).add(f"module:{dotted}")

    def not_listed(self, dotted, call, callee=None) -> str:
        """Why ``dotted`` may not be used: not on the list, or a lookup the grader cannot follow (the
        message then shows the call: ``callee`` or ``dotted``, and the start of its first argument)."""
        if _cannot_tell(dotted):
            shown = f"{callee or dotted}({short(call.args[0], 20) + ', ...' if call and call.args else '...'})"
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
        reads attributes of the subject, by keyword (checked as attribute reads) or by position
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
                    self.problem(child, f"the class pattern `{short(child)}` reads attributes by position, which the "
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
                self.problem(node, f"the annotation `{short(node)}` does more than name a type")
                return
            if isinstance(child, ast.Attribute) and child.attr.startswith("__"):
                self.problem(node, f"the annotation `{short(node)}` reads a dunder attribute")
                return
        for part in _outermost_names(node):
            if not self.names_a_type(part):
                self.expression(part, type_test=True)

    def names_a_type(self, node) -> bool:
        """Whether a name or dotted name in an annotation is a class (or a ``typing`` form): evaluated,
        it looks a type up and calls nothing."""
        base, chain = attribute_chain(node)
        kinds = self.lookup(base, base.id)
        if "class" in kinds and not chain:
            return True
        if kinds == {"builtin"} and not chain:
            return isinstance(getattr(builtins, base.id), type)
        modules = [k.removeprefix("module:") for k in kinds if k.startswith("module:")]
        values = [object_at(".".join([m, *chain])) for m in modules]
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
        inner = self.nested("function", names, self_name)
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
        inner = self.nested("class")
        inner.class_key = id(node)
        self.checker.class_attributes[id(node)] = _class_attributes(node)
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
            self.problem(node, f"the grader cannot tell what assigning to `{short(node)}` changes; "
                               "only attributes of `self` may be set")

    # --- expressions --------------------------------------------------------------------------
    def expression(self, node, *, as_type=False, as_decorator=False, call=None, type_test=False):
        """Check an expression; ``as_type``/``as_decorator``: a builtin may appear as a value there
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
            inner = self.nested("function", {n: {"value"} for n in local})
            inner.expression(node.body)
            return None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = self.nested("function")
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
            if isinstance(node.value, complex) and "complex" not in self.checker.rule.builtins:
                self.problem(node, f"the complex number `{short(node)}` is not on this exercise's list")
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
        if dtype.kind in "fcO" and dtype not in self.checker.rule.dtypes:
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
                if node.id not in self.checker.rule.builtins:
                    self.problem(node, self.not_listed(node.id, call))
                elif not positioned and node.id not in ("NotImplemented", "Ellipsis", "__name__") and \
                        node.id not in EXCEPTIONS:
                    self.problem(node, f"the builtin `{node.id}` is passed as a value; call it by name")

    def attribute(self, node, call):
        base, chain = attribute_chain(node)
        for attr in chain:
            if attr.startswith("__") and attr.endswith("__"):
                self.problem(node, f"the grader cannot tell what `.{attr}` reaches (a dunder attribute)")
                return
        if isinstance(base, ast.Name):
            kinds = self.lookup(base, base.id)
            if "class" in kinds:  # Class.method(x) would run the method with any x as `self`
                self.problem(node, f"`{short(node)}` reads from the class `{base.id}` itself; call it on an instance")
                return
            for kind in kinds:
                if kind.startswith("module:"):
                    self.dotted(node, kind.removeprefix("module:"), chain, call)
                elif kind.startswith("self:"):
                    own = self.checker.class_attributes[int(kind.removeprefix("self:"))]
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
            if attr not in self.checker.rule.methods:
                self.problem(node, f"the method or attribute `.{attr}` is not on this exercise's list of what you may call")
                return

    def dotted(self, node, module, chain, call):
        """A name reached from an import: ``module`` (dotted) then the attributes ``chain``."""
        rule, parts = self.checker.rule, module.split(".") + chain
        for cut in range(len(module.split(".")), len(parts) + 1):
            name = ".".join(parts[:cut])
            value = object_at(name)
            if isinstance(value, types.ModuleType) and cut < len(parts) and (name in rule.names or rule.leads_to_entry(name)):
                continue  # a module on the way (`torch.nn`), or a whole allowed one (`math`)
            if rule.allows(name):
                if isinstance(value, types.ModuleType) and cut == len(parts):
                    self.problem(node, f"the grader cannot tell what the module `{name}` is used for; "
                                       "call what you need from it by name")
                self.methods(node, parts[cut:])
                return
            if not rule.leads_to_entry(name):
                self.problem(node, self.not_listed(name, call, ".".join(parts)))
                return
        self.problem(node, f"the grader cannot tell what the module `{'.'.join(parts)}` is used for; "
                           "call what you need from it by name")
