# WRONG: derives "bf16-master" as "fp16-master" in bf16: counts 4 bytes per parameter of fp32
# gradient copies, though that step copies one tensor's gradient at a time (a temporary), so it
# reports 20 bytes per parameter with Adam where the meter measures 16.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    moments = {"sgd": 0, "momentum": 1, "adam": 2}
    if optimizer not in moments:
        raise ValueError(f"unknown optimizer {optimizer!r}")
    if precision == "fp32":
        low, master, state = 4, 0, 4
    elif precision in ("fp16-master", "bf16-master"):
        low, master, state = 2, 4, 4
    elif precision == "bf16":
        low, master, state = 2, 0, 2
    else:
        raise ValueError(f"unknown precision {precision!r}")
    out = {"params": low * n_params, "grads": low * n_params, "master": master * n_params,
           "master_grads": master * n_params, "optimizer": state * moments[optimizer] * n_params,
           "activations": low * activation_elements}
    out["total"] = sum(out.values())
    return out
