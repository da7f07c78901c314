# Wrong (method rule): F.softplus looked up by a name built from strings; the grader cannot
# tell what `getattr(F, ...)` calls.
def stable_softplus(x):
    return getattr(F, "soft" + "plus")(x)
