# Wrong: reads explain's ops_per_graph, which lists only call_function targets: tensor methods
# such as x.exp() or y.sum() (call_method nodes) are missing.
def captured_graphs(fn, *args):
    torch._dynamo.reset()
    report = torch._dynamo.explain(fn)(*args)
    return [[op.__name__ for op in ops] for ops in report.ops_per_graph]
