# RIGHT, written differently: a match statement per precision, bytes per parameter first, every
# term then one multiplication; the total from a generator over the keys.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    match optimizer:
        case "sgd" | "momentum" | "adam":
            moments = ["sgd", "momentum", "adam"].index(optimizer)
        case _:
            raise ValueError(f"optimizer must be sgd, momentum or adam, not {optimizer!r}")
    match precision:
        case "fp32":
            per = dict(params=4, grads=4, master=0, master_grads=0, optimizer=4 * moments)
            act = 4
        case "fp16-master":
            per = dict(params=2, grads=2, master=4, master_grads=4, optimizer=4 * moments)
            act = 2
        case "bf16":
            per = dict(params=2, grads=2, master=0, master_grads=0, optimizer=2 * moments)
            act = 2
        case "bf16-master":
            per = dict(params=2, grads=2, master=4, master_grads=0, optimizer=4 * moments)
            act = 2
        case _:
            raise ValueError(f"unknown precision {precision!r}")
    out = {key: value * n_params for key, value in per.items()}
    out["activations"] = act * activation_elements
    out["total"] = sum(out[key] for key in list(out))
    return out
