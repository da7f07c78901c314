# Wrong: counts how often compiled graphs *run* during the variant call, not how many were
# compiled: a call that reuses the graph counts 1 instead of 0.
def recompile_counts(fn, base_args, variants):
    counts = {}
    for name, args in variants.items():
        torch._dynamo.reset()
        runs = []

        def count(gm, example_inputs):
            def run(*inputs):
                runs.append(1)
                return gm.forward(*inputs)
            return run

        compiled = torch.compile(fn, backend=count)
        compiled(*base_args)
        runs.clear()
        compiled(*args)
        counts[name] = len(runs)
    return counts
