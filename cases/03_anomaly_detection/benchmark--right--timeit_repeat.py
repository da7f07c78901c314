# Right, written differently: timeit.Timer(...).repeat with number=1 times each call on its own.
import timeit


def benchmark(step_fn, warmup=2, iters=10):
    busy = [name for name, on in (("anomaly detection", torch.is_anomaly_enabled()),
                                  ("the autograd profiler", torch.autograd._profiler_enabled())) if on]
    if busy:
        raise RuntimeError(f"not timing while {' and '.join(busy)} is on")
    for _ in range(warmup):
        step_fn()
    return statistics.median(timeit.Timer(step_fn).repeat(repeat=iters, number=1))
