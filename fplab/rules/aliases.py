"""Import aliases, read one way: what ``import torch as t`` binds, and the dotted path ``t.nn.functional``
then reaches. The checker, the rebinding scan, the review and the hidden-test lint all use it.
"""
import ast


def imported(node) -> list:
    """[(bound name, dotted path)] of an import statement (absolute imports; ``*`` binds nothing known)."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0]) for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
    return []


def attribute_chain(node) -> tuple:
    """(root, [attribute names]) of an attribute chain: ``a.b.c`` is (the node ``a``, ["b", "c"])."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    return node, chain


class Aliases(ast.NodeVisitor):
    """A visitor that follows a cell's imports in order: :meth:`dotted` is the dotted path a name or an
    attribute chain reaches (``np.linalg.norm`` after ``import numpy as np``: ``numpy.linalg.norm``)."""

    def __init__(self):
        self.aliases: dict[str, str] = {}

    def dotted(self, node) -> str | None:
        """The dotted path of a name or of an attribute chain on a name, else None."""
        root, chain = attribute_chain(node)
        if not isinstance(root, ast.Name):
            return None
        return ".".join([self.aliases.get(root.id, root.id), *chain])

    def visit_Import(self, node):
        self.aliases.update(imported(node))

    visit_ImportFrom = visit_Import
