# Wrong (method): right values, but calls torch.logsumexp, which the exercise forbids ("calling
# them would defeat the purpose"); the grader reads the answer cell and gives no points.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    return torch.logsumexp(z, dim=dim)
