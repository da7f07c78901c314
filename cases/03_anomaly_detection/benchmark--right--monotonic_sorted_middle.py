# Right, written differently: time.monotonic read through the module, one any() over both tools,
# the durations sorted and the middle one (or the mean of the middle two) taken by hand.
def benchmark(step_fn, warmup=2, iters=10):
    if any((torch.is_anomaly_enabled(), torch.autograd._profiler_enabled())):
        raise RuntimeError("a debugging tool is on: not timing")
    for _ in range(warmup):
        step_fn()
    taken = []
    for _ in range(iters):
        begin = time.monotonic()
        step_fn()
        taken.append(time.monotonic() - begin)
    taken.sort()
    half, odd = divmod(len(taken), 2)
    return taken[half] if odd else (taken[half - 1] + taken[half]) / 2
