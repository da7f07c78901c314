# Wrong: skips the call with base_args, so the variant call is the first call and always
# compiles: it counts compilations, not recompilations.
def recompile_counts(fn, base_args, variants):
    counts = {}
    for name, args in variants.items():
        torch._dynamo.reset()
        graphs = []

        def count(gm, example_inputs):
            graphs.append(gm)
            return gm.forward

        torch.compile(fn, backend=count)(*args)
        counts[name] = len(graphs)
    return counts
