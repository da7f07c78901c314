"""The course's assignments, in order, with the time a careful learner takes over each.

This is the one table of time estimates: the start page's course map, its Part I total and each
notebook's **Time** line are checked against it (tests/test_standing.py), and
``python -m fplab.standing`` prints it beside each assignment.
"""
MINUTES = {
    "01_nonassociativity": 120,
    "02_norm_overflow": 90,
    "03_anomaly_detection": 90,
    "04_silent_nan": 120,
    "05_float16_range": 120,
    "06_stable_cross_entropy": 135,
    "07_amp_gradscaler_tf32": 135,
    "08_nan_diagnosis_lab": 120,
    "09_compiled_numerics": 75,
    "10_memory_and_flops": 120,
    "11_resume_equivalence": 75,
}
PART_ONE = tuple(MINUTES)[:8]  # 01-08, the core; Part II builds on it


def time_text(minutes: int) -> str:
    """A duration as the course map writes it: ``2 h``, ``1 h 45``, ``45 min``."""
    hours, rest = divmod(minutes, 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} h" + (f" {rest:02d}" if rest else "")
