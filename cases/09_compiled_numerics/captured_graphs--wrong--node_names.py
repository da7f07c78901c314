# Wrong: reports node.name instead of the target. Names are made up for readability: they follow
# the variable names (`y = x * 3` gives a node named "y") and repeat ops get suffixes ("sin_1").
def captured_graphs(fn, *args):
    torch._dynamo.reset()
    graphs = []

    def record(gm, example_inputs):
        graphs.append([node.name for node in gm.graph.nodes
                       if node.op in ("call_function", "call_method", "call_module")])
        return gm.forward

    torch.compile(fn, backend=record)(*args)
    return graphs
