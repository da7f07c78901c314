# Wrong: runs the warm-up calls before checking for debugging tools, so it calls step_fn
# (warmup times) before it refuses.
def benchmark(step_fn, warmup=2, iters=10):
    for _ in range(warmup):
        step_fn()
    if torch.is_anomaly_enabled() or torch.autograd._profiler_enabled():
        raise RuntimeError("switch debugging tools off before timing")
    durations = []
    for _ in range(iters):
        start = time.perf_counter()
        step_fn()
        durations.append(time.perf_counter() - start)
    return statistics.median(durations)
