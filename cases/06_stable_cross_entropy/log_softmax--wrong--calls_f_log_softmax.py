# Wrong (method): right values, but calls F.log_softmax, which the exercise forbids.
def log_softmax(z, dim=-1):
    """log(softmax(z)) along `dim`, finite wherever the true value is finite."""
    return F.log_softmax(z, dim=dim)
