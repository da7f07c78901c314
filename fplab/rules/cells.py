"""Reading a notebook's cells for the rules: IPython's syntax (magics) as code, which cells the learner
wrote (answer cells, and code cells that differ from the release), what each binds, and the
release's cells as fingerprints.
"""
import ast
import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache

from fplab.rules.aliases import imported


# Magics whose argument is Python run in the learner's namespace (checked as code), and magics that
# cannot rebind a name there (ignored). Any other magic costs the rule-bearing exercises.
CODE_MAGICS = {"time", "timeit", "capture", "prun"}
HARMLESS_MAGICS = {"matplotlib", "pip", "conda", "bash", "sh", "env", "who", "whos", "pwd",
                   "ls", "html", "markdown", "latex", "svg", "system", "getoutput"}  # not writefile, load_ext: code from data


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


def ipython_tree(source: str) -> ast.Module:
    """The AST of a cell after IPython's own transformations (a magic is a ``get_ipython()`` call);
    SyntaxError when it is not Python."""
    from IPython.core.inputtransformer2 import TransformerManager

    return ast.parse(TransformerManager().transform_cell(source))


def parse(source: str) -> ast.Module:
    """The AST of a cell as IPython would run it (magics become calls, or the code they run)."""
    try:
        tree = ipython_tree(source)
    except SyntaxError as error:
        raise AnswerSyntaxError(f"line {error.lineno}: {error.msg}") from None
    return ast.fix_missing_locations(_Magics().visit(tree))


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
    """:func:`~fplab.rules.aliases.imported` of every import anywhere in a cell that parses (the release's cells are
    the same in every submission: walked once)."""
    return tuple(pair for node in ast.walk(parse_released(source)) for pair in imported(node))


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


def short(node, limit=40) -> str:
    """A node's code as a message quotes it: at most ``limit`` characters."""
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."
