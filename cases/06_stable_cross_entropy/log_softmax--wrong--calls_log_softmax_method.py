# Wrong (method): the tensor method z.log_softmax, computed in float32 and cast back; right values,
# but the exercise forbids every log-softmax builtin.
def log_softmax(z, dim=-1):
    """log(softmax(z)) along `dim`, finite wherever the true value is finite."""
    return z.float().log_softmax(dim).to(z.dtype)
