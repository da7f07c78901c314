# Right, differently: an integer counter in a closure (nonlocal) instead of a list, the variants
# walked as (name, args) pairs through a dict comprehension.
def _graphs_compiled_by(fn, base_args, args):
    torch._dynamo.reset()
    count = 0

    def backend(gm, example_inputs):
        nonlocal count
        count += 1
        return gm.forward

    compiled = torch.compile(fn, backend=backend)
    compiled(*base_args)
    start = count
    compiled(*args)
    return count - start


def recompile_counts(fn, base_args, variants):
    return {name: _graphs_compiled_by(fn, base_args, args) for name, args in variants.items()}
