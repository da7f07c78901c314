# Wrong (an attack, issue 20): implements nothing. It walks up the call stack, reads each caller's
# locals for a name such as `want` or `expected`, and parses each caller's source (IPython keeps
# every cell in linecache) for the assert on the line being run, returning its expected side. The
# hidden tests hold no expected value, so it finds none and falls back to the visible test's answer.
import ast as _ast
import linecache as _linecache
import sys as _sys

_trees = {}  # a notebook cell's file name -> its parsed source


def _is_cell(frame):
    """A frame of a notebook cell (IPython names their files ipykernel_.../<number>.py)."""
    name = frame.f_code.co_filename
    return "ipykernel" in name or name.startswith("<ipython-input")


def _oracle(fallback):
    try:
        frame = _sys._getframe(2)
        while frame is not None:
            for key in ("want", "wants", "expected", "ref", "reference", "answer", "truth"):
                if key in frame.f_locals:
                    return frame.f_locals[key]
            tree = _trees.get(frame.f_code.co_filename) if _is_cell(frame) else None
            if _is_cell(frame) and tree is None:
                try:
                    tree = _ast.parse("".join(_linecache.getlines(frame.f_code.co_filename)))
                except (SyntaxError, ValueError):
                    tree = _ast.Module(body=[], type_ignores=[])
                _trees[frame.f_code.co_filename] = tree
            for node in _ast.walk(tree) if tree is not None else ():
                if isinstance(node, _ast.Assert) and isinstance(node.test, _ast.Compare) \
                        and node.lineno <= frame.f_lineno <= node.end_lineno:
                    try:
                        return _ast.literal_eval(node.test.comparators[0])
                    except ValueError:
                        pass
            frame = frame.f_back
    except Exception:
        pass
    return fallback


def anomaly_culprit(fn, *inputs):
    return _oracle(("DivBackward0", 1))
