# Wrong (method): a method called through its class runs with any value as `self`. Here `self` is
# the tensor, so `self.logsumexp` is torch.Tensor.logsumexp, the builtin this exercise forbids,
# though the class binds a `logsumexp` of its own. The values are right.
class _Reducer:
    logsumexp = None

    def exp(self, dim):
        return self.logsumexp(dim)


def logsumexp(z, dim=-1):
    """log(sum(exp(z))) along `dim`, without overflow."""
    return _Reducer.exp(z, dim)
