"""Method rules: allowlists checked against the source a learner wrote (trusted side; no kernel).

A result cannot show how it was computed, so where an exercise's text says "write it yourself",
"without X" or "in NumPy", its answer cell in the source notebook declares what the answer may use,
``metadata.finite.allow``, the same entries as the exercise text's "What you may call" list:

- ``torch.exp``, ``numpy.float32``: a dotted name of a module function, class or constant, as
  reached through the learner's imports and aliases (``F.softplus`` is
  ``torch.nn.functional.softplus``); ``math``: any public name of that module;
- ``.exp``, ``.shape``: an attribute of a value (a method such as ``z.exp()``);
- ``float``: a builtin beyond :data:`~fplab.rules.allowlist.DEFAULT_BUILTINS`.

The rule fails closed. The grader reads every cell the learner wrote (answer cells and code cells
that differ from the release) and checks the graded name's every definition, and everything they
use that the learner defined (in any of those cells), transitively. Anything it cannot resolve to an
allowed name (a computed lookup, a string-to-callable resolver, an op registry, a compiler entry
point, a builtin passed as a value, a dunder attribute, a module the rule does not list) costs the
exercise, as does a cell that could rebind names in a way the grader cannot follow (``exec``,
``globals()``, ``setattr``, assigning to an attribute of a module or an object).

Code that looks things up dynamically anywhere else is listed for the instructor to review
(:func:`fplab.rules.review.dynamic_lookups`), never scored.

Modules: ``cells`` (IPython's syntax, which cells the learner wrote, the release's fingerprints),
``allowlist`` (entries and the :class:`~fplab.rules.allowlist.Rule`), ``checker``
(:func:`~fplab.rules.checker.exercise_problems`) and ``scope`` (what it walks), ``rebinding``,
``review``, ``aliases`` (import aliases, shared with the hidden-test lint). The names other code uses
are importable from here.
"""
from fplab.rules.allowlist import RULE_PREFIX, SHAPE_ENTRIES, SHAPE_NOTE, unresolved_entries
from fplab.rules.cells import AnswerSyntaxError, ReleasedDigests, defining_source, digest, parse
from fplab.rules.checker import exercise_problems
from fplab.rules.review import dynamic_lookups

__all__ = ["RULE_PREFIX", "SHAPE_ENTRIES", "SHAPE_NOTE", "AnswerSyntaxError", "ReleasedDigests", "defining_source",
           "digest", "dynamic_lookups", "exercise_problems", "parse", "unresolved_entries"]
