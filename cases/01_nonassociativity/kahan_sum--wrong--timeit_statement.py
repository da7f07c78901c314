# Wrong (method rule): the float64 sum written in a statement string that timeit runs.
import timeit


def kahan_sum(x):
    space = {"x": x}
    timeit.timeit("r = x.double().sum().float()", number=1, globals=space)
    return space["r"]
