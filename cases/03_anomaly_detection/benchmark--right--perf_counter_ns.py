# Right, written differently: perf_counter_ns imported by name, a hand-written median, and the
# profiler flag read from torch.autograd.profiler.
from time import perf_counter_ns


def benchmark(step_fn, warmup=2, iters=10):
    if torch.is_anomaly_enabled():
        raise RuntimeError("anomaly detection is on")
    if torch.autograd.profiler._is_profiler_enabled:
        raise RuntimeError("a profiler is recording")
    for _ in range(warmup):
        step_fn()
    ns = []
    for _ in range(iters):
        t0 = perf_counter_ns()
        step_fn()
        ns.append(perf_counter_ns() - t0)
    ns.sort()
    mid = len(ns) // 2
    middle = ns[mid] if len(ns) % 2 else (ns[mid - 1] + ns[mid]) / 2
    return middle / 1e9
