# Wrong (method rule): F.softplus in a helper bound inside an `if` block of the answer cell.
if True:
    def _impl(x):
        return F.softplus(x)


def stable_softplus(x):
    return _impl(x)
