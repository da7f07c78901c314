# Wrong: compiles once, calls base_args once, then measures every variant on the same compiled
# function. Later variants inherit what earlier ones compiled (a second new length finds the
# size already dynamic), so the counts depend on the order of the variants.
def recompile_counts(fn, base_args, variants):
    torch._dynamo.reset()
    graphs = []

    def count(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(fn, backend=count)
    compiled(*base_args)
    counts = {}
    for name, args in variants.items():
        before = len(graphs)
        compiled(*args)
        counts[name] = len(graphs) - before
    return counts
