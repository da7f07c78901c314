# Wrong (method): the same builtin as a tensor method, z.logsumexp(dim), which the exercise
# forbids by name; the values are right.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    return z.logsumexp(dim)
