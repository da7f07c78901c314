# WRONG: counts Adam's state once (one moment per parameter), as if Adam kept only exp_avg and
# not exp_avg_sq: Adam costs what momentum costs.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    if optimizer not in ("sgd", "momentum", "adam") or precision not in (
            "fp32", "fp16-master", "bf16", "bf16-master"):
        raise ValueError("unknown optimizer or precision")
    low = 4 if precision == "fp32" else 2
    state = 2 if precision == "bf16" else 4
    values = 0 if optimizer == "sgd" else 1
    out = {"params": low * n_params, "grads": low * n_params,
           "master": 4 * n_params if precision.endswith("master") else 0,
           "master_grads": 4 * n_params if precision == "fp16-master" else 0,
           "optimizer": state * values * n_params, "activations": low * activation_elements}
    out["total"] = sum(out.values())
    return out
