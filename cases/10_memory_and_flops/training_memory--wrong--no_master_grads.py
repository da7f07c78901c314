# WRONG: the textbook 16 bytes per parameter for fp16 with master weights and Adam: forgets that
# the fp32 optimizer reads fp32 copies of the gradients ("master_grads" is always 0).
def training_memory(n_params, optimizer, precision, activation_elements=0):
    if optimizer not in ("sgd", "momentum", "adam") or precision not in (
            "fp32", "fp16-master", "bf16", "bf16-master"):
        raise ValueError("unknown optimizer or precision")
    low = 4 if precision == "fp32" else 2
    state = 2 if precision == "bf16" else 4
    values = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    out = {"params": low * n_params, "grads": low * n_params,
           "master": 4 * n_params if precision.endswith("master") else 0, "master_grads": 0,
           "optimizer": state * values * n_params, "activations": low * activation_elements}
    out["total"] = sum(out.values())
    return out
