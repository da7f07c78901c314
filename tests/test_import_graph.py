"""Imports go one way: no module of the course's packages imports, at any depth, one that imports it
back. Every import counts, those inside functions too (an in-function import must not hide a cycle)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("autograder", "fplab")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict:
    """{module: the course's modules it imports}, read from the source."""
    modules = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            # A module's own packages run first whatever it imports: an edge to them is no cycle.
            found |= {t for t in targets if t in modules and t != name and not name.startswith(f"{t}.")}
        graph[name] = found
    return graph


def cycle(graph: dict) -> list:
    """One import cycle of ``graph`` (its modules, the first repeated at the end), or []."""
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        state[module] = "done"
        stack.pop()
        return []

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_no_module_imports_itself_back():
    graph = import_graph()
    assert len(graph) > 40 and graph["autograder.sandbox.run"], "the graph was not read"
    found = cycle(graph)
    assert not found, "import cycle: " + " -> ".join(found)


def test_a_cycle_is_found():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []
