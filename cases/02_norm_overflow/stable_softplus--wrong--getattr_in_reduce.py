# Wrong (method rule): getattr passed as a value to functools.reduce walks to F.softplus.
import functools


def stable_softplus(x):
    return functools.reduce(getattr, ["nn", "functional", "soft" + "plus"], torch)(x)
