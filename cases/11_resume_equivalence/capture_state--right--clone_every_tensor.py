# Right, written differently: a small recursive copier that clones tensors and rebuilds dicts
# and lists, instead of copy.deepcopy.
def capture_state(run):
    def copied(x):
        if isinstance(x, torch.Tensor):
            return x.detach().clone()
        if isinstance(x, dict):
            return type(x)((k, copied(v)) for k, v in x.items())
        if isinstance(x, (list, tuple)):
            return type(x)(copied(v) for v in x)
        return x

    state = {name: copied(getattr(run, name).state_dict()) for name in ("model", "optimizer", "scheduler", "scaler")}
    state["rng"] = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
                    "cuda": [copied(t) for t in torch.cuda.get_rng_state_all()]}
    state["loader"] = {"generator": copied(run.epoch_start), "epoch": run.epoch, "position": run.position}
    state["step"] = run.step
    return state
