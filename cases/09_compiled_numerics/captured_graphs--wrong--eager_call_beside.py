# Wrong: runs fn eagerly first, to compare the compiled output with it. The graphs are right,
# but fn runs twice (once eagerly, once compiled), and the text asks for exactly one call.
def captured_graphs(fn, *args):
    torch._dynamo.reset()
    graphs = []

    def record(gm, example_inputs):
        graphs.append([n.target.__name__ if n.op == "call_function" else n.target
                       for n in gm.graph.nodes if n.op in ("call_function", "call_method")])
        return gm.forward

    eager = fn(*args)
    compiled = torch.compile(fn, backend=record)(*args)
    assert type(eager) is type(compiled)
    return graphs
