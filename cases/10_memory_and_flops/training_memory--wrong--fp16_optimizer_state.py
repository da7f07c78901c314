# WRONG: stores the optimizer state in the model's dtype in the fp16 recipe too (2 bytes per
# value), although it updates the fp32 master copy and is kept in fp32.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    if optimizer not in ("sgd", "momentum", "adam") or precision not in (
            "fp32", "fp16-master", "bf16", "bf16-master"):
        raise ValueError("unknown optimizer or precision")
    low = 4 if precision == "fp32" else 2
    values = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    out = {"params": low * n_params, "grads": low * n_params,
           "master": 4 * n_params if precision.endswith("master") else 0,
           "master_grads": 4 * n_params if precision == "fp16-master" else 0,
           "optimizer": low * values * n_params, "activations": low * activation_elements}
    out["total"] = sum(out.values())
    return out
