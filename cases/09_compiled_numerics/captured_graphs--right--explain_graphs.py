# Right, differently: walks the GraphModules that torch._dynamo.explain returns instead of
# writing a backend (explain resets Dynamo and compiles with its own recording backend).
def captured_graphs(fn, *args):
    torch._dynamo.reset()
    report = torch._dynamo.explain(fn)(*args)
    kept = {"call_function": lambda t: t.__name__, "call_method": str, "call_module": str}
    return [[kept[n.op](n.target) for n in gm.graph.nodes if n.op in kept] for gm in report.graphs]
