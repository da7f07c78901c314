"""The GradScaler explorer: a small model trained with float16 autocast and a real
``torch.amp.GradScaler("cpu")``, recorded step by step, and the widget that replays it; its float32
gradients are what the loss-scale explorer scales.
"""
import functools
import math
import time
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import torch

from fplab.explorers.controls import Explorer, grading, in_range, member, on_change, skip_notice, timed
from fplab.explorers.formats import check_finite, dtype_regions, short_number
from fplab.explorers.plotting import BASELINE, Canvas, new_figure, png_of, REGION_COLOURS


SCALER_STEPS = 300


SCALER_LAYERS = ("layer 1 (16→32)", "layer 2 (32→32)", "layer 3 (32→32)", "layer 4 (32→4)")


SCALER_BINS = np.arange(-64.0, 17.0)
"""log2 bin edges of the gradient histograms: unscaled magnitudes from 2^-64 to 2^16."""


GRADIENT_CLASSES = ("zero", "subnormal", "normal", "inf/nan")


class _PlainSGD:
    """``p -= lr * grad``: all GradScaler needs of an optimizer, without torch.optim's first-use import cost."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params)}]
        self.lr = lr

    @torch.no_grad()
    def step(self):
        for p in self.param_groups[0]["params"]:
            p.add_(p.grad, alpha=-self.lr)


def _toy_problem(seed):
    """A seeded 4-layer tanh MLP and one batch of 128 points in 16-d, 4 classes (the largest of 4 features)."""
    sizes = [16, 32, 32, 32, 4]
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers += [torch.nn.Linear(a, b)] + ([torch.nn.Tanh()] if i < len(sizes) - 2 else [])
    model = torch.nn.Sequential(*layers)
    inputs = torch.randn(128, 16)
    return model, inputs, inputs[:, :4].argmax(dim=1)


def _classify(grads: torch.Tensor) -> list:
    """Counts of float16 gradient values that are zero, subnormal, normal and inf/nan."""
    finite = torch.isfinite(grads)
    magnitude = grads.abs()
    tiny = torch.finfo(torch.float16).tiny
    return [int((magnitude == 0).sum()), int((finite & (magnitude > 0) & (magnitude < tiny)).sum()),
            int((finite & (magnitude >= tiny)).sum()), int((~finite).sum())]


@dataclass(frozen=True)
class ScalerRun:
    """A small model trained with float16 autocast and ``torch.amp.GradScaler("cpu")``, step by step."""

    init_scale: float
    growth_interval: int
    backoff_factor: float
    growth_factor: float
    scales: np.ndarray    # the scale each step's backward used
    skipped: np.ndarray   # True where GradScaler skipped the optimizer step (inf/nan gradients)
    losses: np.ndarray    # float32 loss at each step
    counts: np.ndarray    # (step, layer, bin): finite non-zero |gradient| / scale in SCALER_BINS
    classes: np.ndarray   # (step, layer, class): float16 gradients per GRADIENT_CLASSES (scaled, as stored)


def _train(steps, seed, scaler=None, record=None):
    """Train the toy model with plain SGD; with a scaler, under float16 autocast. Calls ``record(step, model)``
    after each backward (before the step). Runs on one thread in a forked RNG, so it repeats exactly."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            model, inputs, targets = _toy_problem(seed)
            optimizer = _PlainSGD(model.parameters(), lr=0.5)
            for step in range(steps):
                for p in model.parameters():
                    p.grad = None
                with torch.autocast("cpu", dtype=torch.float16, enabled=scaler is not None):
                    loss = torch.nn.functional.cross_entropy(model(inputs), targets)
                (loss if scaler is None else scaler.scale(loss)).backward()
                record(step, model, loss)
                if scaler is None:
                    optimizer.step()
                else:
                    scaler.step(optimizer)
                    scaler.update()
    finally:
        torch.set_num_threads(threads)


def _layer_grads(model):
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    return [torch.cat([m.weight.grad.flatten(), m.bias.grad.flatten()]) for m in linear]


@functools.lru_cache(maxsize=8)
def gradscaler_run(init_scale: float = 2.0**16, growth_interval: int = 20, backoff_factor: float = 0.5,
                   steps: int = SCALER_STEPS, seed: int = 0) -> ScalerRun:
    """Train the toy model for ``steps`` steps with float16 autocast and ``torch.amp.GradScaler("cpu")``.

    Records, at every step, the scale, whether the step was skipped, the loss, and per layer the
    gradients as float16 produced them (the parameters are float32, their gradients arrive
    through float16 casts) classified by :func:`_classify` and histogrammed as |gradient| / scale.
    ``growth_factor`` is GradScaler's default, 2. Cached per knob setting; about 0.3-1 s.
    """
    init_scale = check_finite("init_scale", init_scale)
    backoff_factor = check_finite("backoff_factor", backoff_factor)
    if init_scale <= 0 or not 0 < backoff_factor < 1 or int(growth_interval) != growth_interval or growth_interval < 1:
        raise ValueError("need init_scale > 0, 0 < backoff_factor < 1 and a whole growth_interval >= 1")
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=int(growth_interval),
                                  backoff_factor=backoff_factor)
    scales, losses = np.empty(steps), np.empty(steps)
    counts = np.zeros((steps, len(SCALER_LAYERS), len(SCALER_BINS) - 1), dtype=np.int64)
    classes = np.zeros((steps, len(SCALER_LAYERS), len(GRADIENT_CLASSES)), dtype=np.int64)

    def record(step, model, loss):
        scales[step], losses[step] = scaler.get_scale(), loss.item()
        for layer, grads in enumerate(_layer_grads(model)):
            classes[step, layer] = _classify(grads)
            kept = grads[torch.isfinite(grads) & (grads != 0)].abs().double()
            logs = (torch.log2(kept) - math.log2(scales[step])).clamp(SCALER_BINS[0], SCALER_BINS[-1] - 0.5)
            counts[step, layer] = torch.histc(logs, bins=len(SCALER_BINS) - 1, min=SCALER_BINS[0],
                                              max=SCALER_BINS[-1]).long().numpy()

    _train(steps, seed, scaler, record)
    skipped = classes[:, :, 3].sum(axis=1) > 0
    for array in (scales, skipped, losses, counts, classes):
        array.flags.writeable = False
    return ScalerRun(init_scale, int(growth_interval), backoff_factor, 2.0, scales, skipped, losses, counts, classes)


@functools.lru_cache(maxsize=2)
def model_gradients(steps: int = SCALER_STEPS, seed: int = 0) -> np.ndarray:
    """|gradient| of every parameter of the toy model after ``steps`` steps of plain float32 training.

    Real gradients with nothing lost to a narrow format: what the loss-scale explorer scales.
    """
    kept = {}

    def record(step, model, loss):
        if step == steps - 1:
            kept["grads"] = torch.cat(_layer_grads(model)).abs().double().numpy()

    _train(steps, seed, record=record)
    return kept["grads"]


def _power_text(x: float) -> str:
    exponent = math.log2(x)
    return f"2^{exponent:g}" if exponent == int(exponent) else f"2^{exponent:.2f}"


def scaler_run_report(run: ScalerRun) -> str:
    """One paragraph on a whole run: knobs, skipped steps, the scale's range and where it ended."""
    skipped = np.flatnonzero(run.skipped)
    listed = ", ".join(map(str, skipped[:8])) + (", ..." if skipped.size > 8 else "")
    return "\n".join([
        f"init_scale {_power_text(run.init_scale)}, growth_interval {run.growth_interval}, "
        f"backoff_factor {run.backoff_factor:g}, growth_factor {run.growth_factor:g}",
        f"skipped steps: {skipped.size} of {run.scales.size}" + (f" (step {listed})" if skipped.size else ""),
        f"scale: from {_power_text(run.scales[0])} to {_power_text(run.scales[-1])}, "
        f"highest {_power_text(run.scales.max())}; loss {run.losses[0]:.4g} -> {run.losses[-1]:.4g}",
    ])


def scaler_step_report(run: ScalerRun, step: int) -> str:
    """What float16 held at ``step``: the scale, skipped or not, and per layer the gradient classes."""
    if isinstance(step, bool) or int(step) != step or not 0 <= step < run.scales.size:
        raise ValueError(f"step must be a whole number in [0, {run.scales.size - 1}], got {step!r}")
    step = int(step)
    scale = run.scales[step]
    regions = dtype_regions("float16")
    verdict = "skipped: inf/nan in the scaled gradients, scale x backoff" if run.skipped[step] else "applied"
    lines = [f"step {step}: scale {_power_text(scale)} = {short_number(scale, 8)}, loss {run.losses[step]:.4g}, {verdict}",
             f"{'float16 gradients':<18}" + "".join(f"{c:>11}" for c in GRADIENT_CLASSES)]
    for layer, name in enumerate(SCALER_LAYERS):
        lines.append(f"{name:<18}" + "".join(f"{int(c):>11}" for c in run.classes[step, layer]))
    lines.append(f"at this scale float16 keeps |gradient| above {short_number(regions.zero_up_to / scale, 4)}, "
                 f"in full from {short_number(regions.smallest_normal / scale, 4)}, below {short_number(regions.overflow_from / scale, 4)}")
    return "\n".join(lines)


GROWTH_INTERVALS = (1, 2, 5, 10, 20, 50, 100, 2000)


BACKOFF_FACTORS = (0.125, 0.25, 0.5, 0.75, 0.9)


LOG2_INIT_RANGE = (0, 30)


_LAYER_COLOURS = ("#4c72b0", "#55a868", "#c44e52", "#8172b2")


def gradscaler_explorer(log2_init_scale=16, growth_interval=20, backoff_factor=0.5, step=0):
    """A real ``torch.amp.GradScaler("cpu")`` run on a small model in float16 autocast, step by step.

    Knobs: log2(init_scale), growth_interval and backoff_factor; each change retrains the model
    (:func:`fplab.gradscaler_run`, under a second here; the status line prints the
    time). Top: the scale at every step, skipped steps marked. Bottom, under the step slider:
    that step's gradients per layer (|gradient| / scale, log2 axis, log count axis) over the band
    float16 keeps at that step's scale. Moving the step slider recomputes nothing. ``ValueError``
    for a knob value off its slider or a step out of range, also during grading.
    """
    log2_init_scale = in_range("log2_init_scale", log2_init_scale, LOG2_INIT_RANGE)
    if log2_init_scale != int(log2_init_scale):
        raise ValueError(f"log2_init_scale must be a whole number, got {log2_init_scale:g}")
    member("growth_interval", growth_interval, GROWTH_INTERVALS)
    member("backoff_factor", backoff_factor, BACKOFF_FACTORS)
    in_range("step", step, (0, SCALER_STEPS - 1))
    if grading():
        return skip_notice("gradscaler_explorer")
    knob = {"continuous_update": False, "style": {"description_width": "initial"}}
    controls = {
        "log2_init_scale": widgets.IntSlider(value=int(log2_init_scale), min=LOG2_INIT_RANGE[0],
                                             max=LOG2_INIT_RANGE[1], description="log2(init_scale)", **knob),
        "growth_interval": widgets.SelectionSlider(options=GROWTH_INTERVALS, value=growth_interval,
                                                   description="growth_interval", **knob),
        "backoff_factor": widgets.SelectionSlider(options=BACKOFF_FACTORS, value=backoff_factor,
                                                  description="backoff_factor", **knob),
        "step": widgets.IntSlider(value=int(step), min=0, max=SCALER_STEPS - 1, description="step",
                                  layout=widgets.Layout(width="640px")),
    }
    status = widgets.Label()
    figure = new_figure(9.8, 5.6)
    figure.subplots_adjust(left=0.08, right=0.78, bottom=0.1, top=0.95, hspace=0.45)
    scale_ax, hist_ax = figure.subplots(2, 1)
    scale_ax.set_xlim(0, SCALER_STEPS - 1)
    scale_ax.set_ylim(LOG2_INIT_RANGE[0] - 1, 40)
    scale_ax.set_xlabel("training step", fontsize=10)
    scale_ax.set_ylabel("log2(scale)", fontsize=10)
    scale_ax.set_title("the loss scale GradScaler used at each step", fontsize=10)
    (scale_line,) = scale_ax.step([], [], where="post", color="#1f77b4", lw=1.6, label="scale")
    (skip_marks,) = scale_ax.plot([], [], "x", color="#c00000", ms=8, mew=2, label="skipped step")
    (step_dot,) = scale_ax.plot([np.nan], [np.nan], "o", color="black", ms=7, label="this step")
    scale_ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    edges = SCALER_BINS
    hist_ax.set_xlim(edges[0], edges[-1])
    hist_ax.set_yscale("log")
    hist_ax.set_ylim(BASELINE * 0.9, 2000)
    hist_ax.set_xlabel("log2 |gradient|  (unscaled: |float16 gradient| / scale)", fontsize=10)
    hist_ax.set_ylabel("count per power of two", fontsize=10)
    kinds = ("zero", "subnormal", "normal", "overflow")
    spans = {kind: hist_ax.axvspan(0, 0, color=REGION_COLOURS[kind], alpha=0.35, lw=0) for kind in kinds}
    stairs = [hist_ax.stairs(np.full(len(edges) - 1, BASELINE), edges, baseline=BASELINE, fill=True,
                             color=colour, label=name) for name, colour in zip(SCALER_LAYERS, _LAYER_COLOURS)]
    hist_ax.set_title("the chosen step's gradients per layer, over what float16 keeps at its scale", fontsize=10)
    lost_text = hist_ax.text(edges[-1] - 1, 600, "", ha="right", color="#a00000", fontsize=11, weight="bold")
    hist_ax.legend(handles=stairs + [spans[k] for k in kinds],
                   labels=list(SCALER_LAYERS) + ["float16: lost to zero", "subnormal", "kept in full",
                                                         "overflow"],
                   loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False)
    canvas = Canvas(figure, [step_dot, lost_text, *spans.values(), *stairs])
    readout = widgets.HTML()
    explorer = Explorer(controls, readout, png_of(figure), figure, [status])
    regions = dtype_regions("float16")
    current = {}

    def retrain():
        # The busy cue: sent to the browser now, before the retrain blocks the kernel.
        status.value = f"⏳ retraining: {SCALER_STEPS} steps of GradScaler…"
        explorer.add_class("fplab-busy")
        start = time.perf_counter()
        run = gradscaler_run(2.0 ** controls["log2_init_scale"].value, controls["growth_interval"].value,
                                     controls["backoff_factor"].value)
        status.value = (f"this run: {SCALER_STEPS} steps, computed in {time.perf_counter() - start:.2f} s "
                        "(a knob change retrains; the step slider only reads the run)")
        steps = np.arange(SCALER_STEPS)
        log2_scales = np.log2(run.scales)
        scale_line.set_data(steps, log2_scales)
        skip_marks.set_data(steps[run.skipped], log2_scales[run.skipped])
        current["run"] = run
        canvas.background = None  # the scale plot changed: the next blit redraws everything
        explorer.remove_class("fplab-busy")

    def show_step():
        run, k = current["run"], controls["step"].value
        scale = run.scales[k]
        step_dot.set_data([k], [math.log2(scale)])
        top = BASELINE + np.zeros(len(edges) - 1)
        for layer, stair in enumerate(stairs):
            bottom, top = top, top + run.counts[k, layer]
            stair.set_data(top, edges, baseline=bottom)
        bounds = np.clip([edges[0], math.log2(regions.zero_up_to / scale), math.log2(regions.smallest_normal / scale),
                          math.log2(regions.overflow_from / scale), edges[-1]], edges[0], edges[-1])
        for kind, a, b in zip(kinds, bounds[:-1], bounds[1:]):
            spans[kind].set_x(a)
            spans[kind].set_width(b - a)
        nonfinite = int(run.classes[k, :, 3].sum())
        lost_text.set_text(f"+ {nonfinite} inf/nan\n(not on the axis)" if nonfinite else "")
        return canvas.blit()

    def update(change=None):
        if change is None or change["owner"] is not controls["step"]:
            retrain()
        png = show_step()
        run = current["run"]
        text = scaler_run_report(run) + "\n\n" + scaler_step_report(run, controls["step"].value)
        explorer.show(run, text, png)

    for control in controls.values():
        on_change(explorer, control, update)
    timed(explorer, update)()
    return explorer
