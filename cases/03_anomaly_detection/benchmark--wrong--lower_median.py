# Wrong: torch.median returns the lower of the two middle values for an even count, not their
# average as statistics.median does.
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
    return torch.tensor(durations, dtype=torch.float64).median().item()
