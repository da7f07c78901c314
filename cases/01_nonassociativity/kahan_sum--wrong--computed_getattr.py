# Wrong (method rule): the float64 method looked up by a name built from strings; the grader
# cannot tell what `getattr(x, ...)` calls.
def kahan_sum(x):
    return getattr(x, "dou" + "ble")().sum().float()
