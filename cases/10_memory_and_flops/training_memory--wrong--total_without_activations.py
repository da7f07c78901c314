# WRONG: "total" leaves the activations out (only the state the step keeps between steps), though
# the contract says total is the sum of all six terms.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    if optimizer not in ("sgd", "momentum", "adam") or precision not in (
            "fp32", "fp16-master", "bf16", "bf16-master"):
        raise ValueError("unknown optimizer or precision")
    low = 4 if precision == "fp32" else 2
    state = 2 if precision == "bf16" else 4
    master = 4 if precision.endswith("master") else 0
    values = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
    out = {"params": low * n_params, "grads": low * n_params, "master": master * n_params,
           "master_grads": master * n_params if precision == "fp16-master" else 0,
           "optimizer": state * values * n_params, "activations": low * activation_elements}
    out["total"] = sum(v for k, v in out.items() if k != "activations")
    return out
