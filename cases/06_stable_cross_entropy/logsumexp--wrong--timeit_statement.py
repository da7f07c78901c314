# Wrong (method rule): the builtin written in a statement string that timeit runs.
import timeit


def logsumexp(z, dim=-1):
    space = {"z": z.float(), "d": dim, "torch": torch}
    timeit.timeit("r = torch.logsumexp(z, d)", number=1, globals=space)
    return space["r"].to(z.dtype)
