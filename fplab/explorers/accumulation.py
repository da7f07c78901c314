"""The accumulation explorer: a sum built up term by term four ways (naive, pairwise ``torch.sum``,
Kahan, stochastic rounding), its error against n, and the widget that shows it.
"""
import functools
import math
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import torch

from fplab.explorers.controls import choice, connect, Explorer, grading, member, skip_notice
from fplab.explorers.formats import (
    ACCUMULATION_DTYPES, cast, check_finite_array, dtype_regions, Format, short_number, stochastic_round,
    torch_dtype,
)
from fplab.explorers.plotting import Canvas, new_figure, png_of


ACCUMULATION_METHODS = ("naive", "pairwise", "kahan", "stochastic")


ACCUMULATION_DATA = ("1e-4 repeated", "uniform(0, 1)")


ACCUMULATION_N = 10_000
"""The longest sum the accumulation explorer computes."""


def accumulation_terms(data: str, dtype_name: str, n: int = ACCUMULATION_N, seed: int = 0) -> np.ndarray:
    """The ``n`` terms of ``data`` (one of :data:`ACCUMULATION_DATA`) as stored in ``dtype_name``, float64."""
    if data not in ACCUMULATION_DATA:
        raise ValueError(f"data must be one of {', '.join(map(repr, ACCUMULATION_DATA))}, got {data!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    raw = np.full(n, 1e-4) if data == ACCUMULATION_DATA[0] else np.random.default_rng(seed).random(n)
    return cast(raw, dtype_name)


def running_sums(terms, dtype_name: str, method: str, seed: int = 0) -> np.ndarray:
    """The running total after each term, every addition rounded to ``dtype_name`` as torch rounds it.

    ``naive``: left to right. ``kahan``: compensated, every step in the format. ``stochastic``:
    the exact sum of total and term, stochastically rounded (:func:`stochastic_round`, seeded).
    (``pairwise`` has no running total: see :func:`accumulate`.)
    """
    fmt = Format(dtype_name)
    rnd = fmt.round
    terms = check_finite_array("terms", terms).tolist()
    totals = np.empty(len(terms))
    total = compensation = 0.0
    if method == "naive":
        for i, term in enumerate(terms):
            total = totals[i] = rnd(total + term)
    elif method == "kahan":
        for i, term in enumerate(terms):
            y = rnd(term - compensation)
            t = rnd(total + y)
            compensation = rnd(rnd(t - total) - y)
            total = totals[i] = t
    elif method == "stochastic":
        draws = np.random.default_rng([seed, 1]).random(len(terms)).tolist()  # not the data's stream
        for i, (term, u) in enumerate(zip(terms, draws)):
            total = totals[i] = stochastic_round(total + term, dtype_name, u)
    else:
        raise ValueError(f"method must be naive, kahan or stochastic, got {method!r}")
    return totals


@dataclass(frozen=True)
class AccumulationRun:
    """Totals of one data set summed four ways in one format, at checkpoints ``ns``."""

    data: str
    dtype: str
    unit_roundoff: float   # u = eps / 2: the largest relative error of one rounding
    ns: np.ndarray         # checkpoints: how many terms are summed
    exact: np.ndarray      # exact sums of the stored terms (float64)
    totals: dict           # method -> totals at the checkpoints
    last_growth: dict      # method -> the last term, up to each checkpoint, that changed the total (sequential methods)

    def relative_error(self, method: str) -> np.ndarray:
        return np.abs(self.totals[method] - self.exact) / np.abs(self.exact)


def accumulation_checkpoints(n: int = ACCUMULATION_N) -> np.ndarray:
    """The n at which :func:`accumulate` reports totals: 1 to ``n``, about 120 of them, log-spaced."""
    return np.unique(np.round(np.geomspace(1, n, 121)).astype(np.int64))


@functools.lru_cache(maxsize=16)
def accumulate(data: str, dtype_name: str, n: int = ACCUMULATION_N, seed: int = 0) -> AccumulationRun:
    """Sum the first k terms of ``data`` in ``dtype_name`` for k at log-spaced checkpoints up to ``n``.

    naive, kahan and stochastic as in :func:`running_sums`; pairwise is ``torch.sum`` of the
    first k terms as a ``dtype_name`` tensor (torch adds in blocks, and on the CPU it
    accumulates float16 and bfloat16 in float32, rounding the result once). Cached: the
    explorer computes each (data, dtype) once.
    """
    Format(dtype_name)  # checks the dtype before any work
    terms = accumulation_terms(data, dtype_name, n, seed)
    ns = accumulation_checkpoints(n)
    totals, last_growth = {}, {}
    for method in ("naive", "kahan", "stochastic"):
        running = running_sums(terms, dtype_name, method, seed)
        changed = np.flatnonzero(np.diff(running, prepend=0.0) != 0) + 1  # 1-based term numbers
        totals[method] = running[ns - 1]
        last_growth[method] = changed[np.searchsorted(changed, ns, side="right") - 1]
    stored = torch.from_numpy(terms).to(torch_dtype(dtype_name))
    totals["pairwise"] = np.array([float(stored[:k].sum()) for k in ns])
    exact = np.cumsum(terms)[ns - 1]  # exact: at most 14 + 24 significant bits
    for array in [*totals.values(), *last_growth.values(), ns, exact]:
        array.flags.writeable = False
    return AccumulationRun(data, dtype_name, dtype_regions(dtype_name).eps / 2, ns, exact,
                           {m: totals[m] for m in ACCUMULATION_METHODS}, last_growth)


def accumulation_report(run: AccumulationRun, n: int) -> str:
    """The text the accumulation explorer shows at checkpoint ``n``: each method's total and error."""
    matches = np.flatnonzero(run.ns == n)
    if matches.size == 0:
        raise ValueError(f"n must be one of the run's checkpoints, got {n!r}")
    i = int(matches[0])
    u = run.unit_roundoff
    lines = [f"{run.data} in {run.dtype}, n = {n}: exact sum {short_number(run.exact[i], 9)}",
             f"u = {short_number(u, 4)} (half of eps); n·u = {short_number(n * u, 4)}, √n·u = {short_number(math.sqrt(n) * u, 4)}",
             f"{'method':<12}{'total':<14}{'rel. error':<12}last term that changed the total"]
    for method in ACCUMULATION_METHODS:
        last = run.last_growth.get(method)
        grew = "-" if last is None else str(last[i])
        lines.append(f"{method:<12}{short_number(run.totals[method][i], 7):<14}{short_number(run.relative_error(method)[i], 3):<12}{grew}")
    return "\n".join(lines)


_METHOD_COLOURS = {"naive": "#e4572e", "pairwise": "#1f77b4", "kahan": "#2ca02c", "stochastic": "#9467bd"}


# pairwise and kahan often give the same totals: pairwise is a wide pale band drawn first, so the
# thin kahan line on top of it leaves it visible on both sides
_METHOD_STYLES = {"pairwise": dict(lw=5.0, alpha=0.45, solid_capstyle="butt")}


_ERROR_FLOOR = 1e-9  # a relative error of exactly 0 is drawn here on the log axis


def accumulation_explorer(data=ACCUMULATION_DATA[0], dtype="float16", n=1000):
    """Add up to 10^4 terms four ways in one format: the totals and the relative error against n.

    Controls: the data (a repeated small term or uniform random numbers), the dtype and n (a
    slider over the checkpoints of :func:`fplab.accumulate`). Left: the running totals
    and the exact sum; right: each method's relative error with the n·u and √n·u guides. The
    readout is :func:`fplab.accumulation_report`. Every (data, dtype) is computed when
    the explorer is built, so no control recomputes anything. ``ValueError`` for an unknown
    data set or dtype, or an n that is not a checkpoint, also during grading.
    """
    choice("dtype", dtype, ACCUMULATION_DTYPES)
    member("data", data, ACCUMULATION_DATA)
    checkpoints = accumulation_checkpoints().tolist()
    member("n", n, checkpoints)
    if grading():
        return skip_notice("accumulation_explorer")
    runs = {(d, t): accumulate(d, t) for d in ACCUMULATION_DATA for t in ACCUMULATION_DTYPES}
    controls = {
        "data": widgets.Dropdown(options=list(ACCUMULATION_DATA), value=data, description="data"),
        "dtype": widgets.Dropdown(options=list(ACCUMULATION_DTYPES), value=dtype, description="dtype",
                                  layout=widgets.Layout(width="220px")),
        "n": widgets.SelectionSlider(options=checkpoints, value=n, description="n terms",
                                     layout=widgets.Layout(width="520px")),
    }
    figure = new_figure(9.8, 4.0)
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.26, top=0.9, wspace=0.25)
    totals_ax, errors_ax = figure.subplots(1, 2)
    for ax in (totals_ax, errors_ax):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1, ACCUMULATION_N)
        ax.set_xlabel("n (terms added)", fontsize=10)
    totals_ax.set_ylim(1e-4, 1e4)
    errors_ax.set_ylim(_ERROR_FLOOR / 2, 1e2)
    totals_ax.set_title("running total (dashed black: exact)", fontsize=10)
    errors_ax.set_title(f"relative error (0 drawn at {_ERROR_FLOOR:g})", fontsize=10)
    dynamic = {}
    for method, colour in _METHOD_COLOURS.items():
        style = dict(color=colour, lw=1.6) | _METHOD_STYLES.get(method, {})
        dynamic[f"total {method}"] = totals_ax.plot([], [], **style)[0]
        dynamic[method] = errors_ax.plot([], [], label=method, **style)[0]
    # The exact sum last, so it is drawn over the methods that match it: dashed black, white gaps.
    dynamic["exact"] = totals_ax.plot([], [], color="black", ls=(0, (4, 3)), lw=1.8, label="exact",
                                      gapcolor="white")[0]
    dynamic["n·u"] = errors_ax.plot([], [], color="black", ls="--", lw=1, label="n·u")[0]
    dynamic["√n·u"] = errors_ax.plot([], [], color="black", ls=":", lw=1.2, label="√n·u")[0]
    cursors = [ax.axvline(1, color="black", lw=0.8) for ax in (totals_ax, errors_ax)]
    figure.legend(handles=[dynamic[m] for m in _METHOD_COLOURS] + [dynamic[k] for k in ("exact", "n·u", "√n·u")],
                  loc="lower center", ncols=7, fontsize=10, frameon=False)
    canvas = Canvas(figure, list(dynamic.values()) + cursors)  # drawn in this order: exact over the totals
    readout = widgets.HTML()
    explorer = Explorer(controls, readout, png_of(figure), figure)

    def update():
        run = runs[controls["data"].value, controls["dtype"].value]
        k = controls["n"].value
        dynamic["exact"].set_data(run.ns, run.exact)
        for method in ACCUMULATION_METHODS:
            dynamic[f"total {method}"].set_data(run.ns, run.totals[method])
            dynamic[method].set_data(run.ns, np.maximum(run.relative_error(method), _ERROR_FLOOR))
        dynamic["n·u"].set_data(run.ns, run.ns * run.unit_roundoff)
        dynamic["√n·u"].set_data(run.ns, np.sqrt(run.ns) * run.unit_roundoff)
        for cursor in cursors:
            cursor.set_xdata([k, k])
        explorer.show(run, accumulation_report(run, k), canvas.blit())

    return connect(explorer, controls, update)
