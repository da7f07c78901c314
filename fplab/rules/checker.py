"""The checker: the code that defines a graded name, wherever it is, and everything of the learner's
it uses, transitively, checked against the exercise's :class:`~fplab.rules.allowlist.Rule`; what it
cannot resolve costs the exercise (:func:`exercise_problems`).
"""
import ast
import builtins

from fplab.rules.aliases import imported
from fplab.rules.allowlist import RULE_PREFIX, Rule
from fplab.rules.cells import AnswerSyntaxError, Cell, parse, released_imports, released_names, student_cells
from fplab.rules.rebinding import rebinding_problems
from fplab.rules.scope import Scope


class _Checker:
    """Checks the code that defines one graded name against a :class:`~fplab.rules.allowlist.Rule`: its
    statements, and every statement of the learner's they use, queued until none is left."""

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
            Scope(self, cell).statement(statement)
        return list(dict.fromkeys(self.problems))

    def global_name(self, cell, node, name) -> set:
        """What a module-level name may be: {"value"} and/or {"module:<dotted>"}; queues the
        learner's statements that bind it; reports a name nothing resolves."""
        kinds = set()
        for dotted in self.imports.get(name, ()):
            kinds.add(f"module:{dotted}")
        for owner, statement in self.bindings.get(name, []):
            self.include(owner, statement)
            paths = [d for n, d in imported(statement) if n == name] if \
                isinstance(statement, (ast.Import, ast.ImportFrom)) else []
            kinds |= {f"module:{d}" for d in paths} or {"value"}
            if isinstance(statement, ast.ClassDef) and statement.name == name:
                kinds.add("class")
        if name in self.notebook_names:
            kinds.add("notebook")
        if not kinds:
            kinds.add("builtin" if hasattr(builtins, name) else "unknown")
        return kinds


def check_answer(cells, imports, notebook_names, graded: str, allow) -> list:
    """Problems with the code that defines ``graded`` (the answer cell of that grade id, and every
    other binding of the name) under the allowlist ``allow``, as "kahan_sum, line 3: ..." (an empty
    list when it follows the rule). ``cells``: from :func:`student_cells`; ``imports``/``notebook_names``:
    the notebook's own (unchanged) cells'."""
    answer = next((c for c in cells if c.label == graded), None)
    if answer is not None and answer.tree is None:
        return []  # it does not parse: the exercise scores 0 for that (verdict.method_problems)
    empty = Cell(graded, "", ast.Module(body=[], type_ignores=[]))
    return _Checker(cells, imports, notebook_names, Rule.of(allow)).run(answer or empty, graded)


def exercise_problems(nb, released_code, rules, tests) -> dict:
    """{test grade_id: why it scores 0} for answer cells that do not parse, and for exercises whose
    method rule (an allowlist) the learner's code breaks: the code that defines the graded name,
    wherever it is, and anything in a cell they wrote that could rebind names unseen. ``released_code``:
    the release's code cells (anything that supports ``in``); ``rules``: {test: (answer, allow)}; ``tests``:
    the test grade ids to check. The grader calls it outside the kernel with the release's own data; a
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
        found = check_answer(cells, imports, notebook_names, answer, allow) + rebinding
        if found:
            more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
            problems[test] = RULE_PREFIX + "; ".join(found[:3]) + more
    return problems
