# Wrong: calls the compiled function twice ("once to compile, once to check it runs from the
# cache"). The graphs are right, but fn runs twice, and the text asks for exactly one call.
def captured_graphs(fn, *args):
    torch._dynamo.reset()
    graphs = []

    def record(gm, example_inputs):
        graphs.append([n.target.__name__ if n.op == "call_function" else n.target
                       for n in gm.graph.nodes if n.op in ("call_function", "call_method")])
        return gm.forward

    compiled = torch.compile(fn, backend=record)
    compiled(*args)
    compiled(*args)
    return graphs
