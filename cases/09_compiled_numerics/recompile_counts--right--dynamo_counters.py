# Right, differently: the built-in "eager" backend and Dynamo's own statistics counter
# (torch._dynamo.utils.counters["stats"]["unique_graphs"]), read before and after the call.
from torch._dynamo.utils import counters


def recompile_counts(fn, base_args, variants):
    result = {}
    for name in variants:
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend="eager")
        compiled(*base_args)
        start = counters["stats"]["unique_graphs"]
        compiled(*variants[name])
        result[name] = int(counters["stats"]["unique_graphs"] - start)
    return result
