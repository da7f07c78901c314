# Wrong (method rule): the float64 sum hides in a helper bound inside an `if` block; the helper's
# body is judged by the same list, and `.double` is not on it.
if True:
    def _wide(v):
        return v.double().sum().float()


def kahan_sum(x):
    return _wide(x)
