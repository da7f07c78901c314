# Wrong (method): a `match` class pattern reads attributes of the subject by keyword, where the rule
# sees no attribute access in the code: `object(__class__=object(logsumexp=...))` fetches
# torch.Tensor's own logsumexp, the builtin this exercise forbids. The values are right.
def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    match z:
        case object(__class__=object(logsumexp=builtin)):
            return builtin(z, dim)
