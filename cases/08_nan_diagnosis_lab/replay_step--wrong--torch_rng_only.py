# Wrong: restores torch's random state only; a step that also draws from Python's random or
# NumPy (augmentation, shuffling) comes out different.
def replay_step(path, step_fn):
    state = torch.load(path, weights_only=False)
    step_fn.model.load_state_dict(state["model"])
    step_fn.optimizer.load_state_dict(state["optimizer"])
    step_fn.scaler.load_state_dict(state["scaler"])
    torch.set_rng_state(state["rng"]["torch"])
    return step_fn(state["batch"])
