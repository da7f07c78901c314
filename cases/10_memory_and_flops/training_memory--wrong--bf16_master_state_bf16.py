# WRONG: derives "bf16-master" with Adam's state in bf16, the model's dtype (2 bytes per value),
# though the optimizer updates the fp32 master copy and its state is fp32.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    table = {  # params/grads/activations, master, master grads, optimizer state: bytes per value
        "fp32": (4, 0, 0, 4),
        "fp16-master": (2, 4, 4, 4),
        "bf16": (2, 0, 0, 2),
        "bf16-master": (2, 4, 0, 2),
    }
    values = {"sgd": 0, "momentum": 1, "adam": 2}
    if precision not in table or optimizer not in values:
        raise ValueError("unknown optimizer or precision")
    low, master, master_grads, state = table[precision]
    out = dict(params=low * n_params, grads=low * n_params, master=master * n_params,
               master_grads=master_grads * n_params, optimizer=state * values[optimizer] * n_params,
               activations=low * activation_elements)
    out["total"] = sum(out.values())
    return out
