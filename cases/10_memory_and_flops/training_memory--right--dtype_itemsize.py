# RIGHT, written differently: bytes per value read from torch dtypes' itemsize, terms built one
# by one, the total added up explicitly.
def training_memory(n_params, optimizer, precision, activation_elements=0):
    if precision == "fp32":
        model_dtype, master_dtype, state_dtype = torch.float32, None, torch.float32
    elif precision == "fp16-master":
        model_dtype, master_dtype, state_dtype = torch.float16, torch.float32, torch.float32
    elif precision == "bf16":
        model_dtype, master_dtype, state_dtype = torch.bfloat16, None, torch.bfloat16
    elif precision == "bf16-master":
        model_dtype, master_dtype, state_dtype = torch.bfloat16, torch.float32, torch.float32
    else:
        raise ValueError(precision)
    if optimizer == "sgd":
        moments = 0
    elif optimizer == "momentum":
        moments = 1
    elif optimizer == "adam":
        moments = 2
    else:
        raise ValueError(optimizer)
    result = {}
    result["params"] = n_params * model_dtype.itemsize
    result["grads"] = n_params * model_dtype.itemsize
    result["master"] = 0 if master_dtype is None else n_params * master_dtype.itemsize
    # only fp16-master holds every fp32 gradient copy at once; bf16-master's is a temporary
    result["master_grads"] = result["master"] if precision == "fp16-master" else 0
    result["optimizer"] = moments * n_params * state_dtype.itemsize
    result["activations"] = activation_elements * model_dtype.itemsize
    result["total"] = (result["params"] + result["grads"] + result["master"]
                       + result["master_grads"] + result["optimizer"] + result["activations"])
    return result
