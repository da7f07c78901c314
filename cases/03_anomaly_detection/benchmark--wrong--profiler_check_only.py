# Wrong: refuses under the profiler but not under anomaly detection.
def benchmark(step_fn, warmup=2, iters=10):
    if torch.autograd._profiler_enabled():
        raise RuntimeError("the profiler is on: stop it before timing")
    for _ in range(warmup):
        step_fn()
    durations = []
    for _ in range(iters):
        start = time.perf_counter()
        step_fn()
        durations.append(time.perf_counter() - start)
    return statistics.median(durations)
