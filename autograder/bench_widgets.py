"""Explorer latency: build each fplab.widgets explorer and time its controls, move by move."""
import os
import statistics
import time

import numpy as np


def _sweep(low, high, moves, decimals):
    """``moves`` distinct values across a slider's range, in an order that jumps between regions."""
    values = np.round(np.linspace(low, high, moves), decimals)
    order = np.random.default_rng(0).permutation(moves)
    return [float(v) for v in values[order]]


def _time_moves(control, values):
    """Milliseconds each ``control.value = v`` takes: the update, the redraw and the PNG."""
    times = []
    for value in values:
        start = time.perf_counter()
        control.value = value
        times.append((time.perf_counter() - start) * 1e3)
    return times


def bench_widgets(out, moves=50):
    """Print a table: for each explorer, its build time and the median and max ms per control move.

    Slider moves go to ``moves`` values spread over the slider's range (visited in a shuffled
    order). A dtype change cycles through the dropdown twice: the first visit of a dtype
    redraws the static parts of the figure, later visits reuse them.
    """
    os.environ.pop("NBGRADER_EXECUTION", None)
    start = time.perf_counter()
    from fplab import widgets

    import_s = time.perf_counter() - start
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    print(f"import fplab.widgets (with torch and ipywidgets): {import_s:.2f} s; load average {load}; "
          f"{os.cpu_count()} cores; the first build also imports matplotlib", file=out)
    low, high = widgets.LOG2_SCALE_RANGE  # every whole power of two on the slider
    plans = [
        (widgets.dtype_explorer, [("magnitude", _sweep(*widgets.LOG10_RANGE, moves, 2))]),
        (widgets.softmax_explorer, [("shift", _sweep(*widgets.SHIFT_RANGE, moves, 0)),
                                    ("scale", _sweep(*widgets.SCALE_RANGE, moves, 1))]),
        (widgets.loss_scale_explorer, [("log2_scale", [int(v) for v in _sweep(low, high, high - low + 1, 0)])]),
    ]
    print(f"{'explorer':<22} {'control':<12} {'moves':>5} {'median ms':>10} {'max ms':>8}", file=out)
    worst = 0.0
    for build, sliders in plans:
        start = time.perf_counter()
        explorer = build()
        build_ms = (time.perf_counter() - start) * 1e3
        print(f"{build.__name__:<22} {'(build)':<12} {1:>5} {build_ms:>10.1f} {build_ms:>8.1f}", file=out)
        rows = [(name, _time_moves(explorer.controls[name], values)) for name, values in sliders]
        for name, _ in sliders:
            worst = max(worst, statistics.median(dict(rows)[name]))
        options = list(explorer.controls["dtype"].options)
        current = explorer.controls["dtype"].value
        cycle = [o for o in options if o != current] + [current]
        rows.append(("dtype", _time_moves(explorer.controls["dtype"], cycle * 2)))
        for name, times in rows:
            print(f"{'':<22} {name:<12} {len(times):>5} {statistics.median(times):>10.1f} {max(times):>8.1f}",
                  file=out)
    print(f"slowest median slider move: {worst:.1f} ms", file=out)
    return worst
