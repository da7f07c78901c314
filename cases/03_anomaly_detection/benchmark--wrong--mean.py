# Wrong: reports the mean of the timed calls; one slow call (an interruption) drags it up.
def benchmark(step_fn, warmup=2, iters=10):
    if torch.is_anomaly_enabled() or torch.autograd._profiler_enabled():
        raise RuntimeError("switch debugging tools off before timing")
    for _ in range(warmup):
        step_fn()
    durations = []
    for _ in range(iters):
        start = time.perf_counter()
        step_fn()
        durations.append(time.perf_counter() - start)
    return statistics.mean(durations)
