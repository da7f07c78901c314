# Wrong (the attack reported in issue #17): no code that looks at fn or x, only an object that
# claims to equal anything and to be true. Every == and every assert in the kernel passes; the
# grader records the object as not plain data, so no observation of it matches.
class _Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __lt__ = __le__ = __gt__ = __ge__ = __eq__

    def __bool__(self):
        return True

    def __hash__(self):
        return 0

    def __repr__(self):
        return "'forward'"


def nan_origin(fn, x):
    """Say where the first non-finite value of ``fn`` at ``x`` appears."""
    return _Anything()
