# Wrong: times the warm-up calls too and takes the median of all warmup + iters durations, so
# the slow first calls shift the result.
def benchmark(step_fn, warmup=2, iters=10):
    if torch.is_anomaly_enabled() or torch.autograd._profiler_enabled():
        raise RuntimeError("switch debugging tools off before timing")
    durations = []
    for _ in range(warmup + iters):
        start = time.perf_counter()
        step_fn()
        durations.append(time.perf_counter() - start)
    return statistics.median(durations)
