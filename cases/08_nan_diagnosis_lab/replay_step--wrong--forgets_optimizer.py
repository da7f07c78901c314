# Wrong: forgets the optimizer state, so Adam starts from zero moments and the updated
# parameters differ from the original step's.
def replay_step(path, step_fn):
    state = torch.load(path, weights_only=False)
    step_fn.model.load_state_dict(state["model"])
    step_fn.scaler.load_state_dict(state["scaler"])
    torch.set_rng_state(state["rng"]["torch"])
    random.setstate(state["rng"]["python"])
    np.random.set_state(state["rng"]["numpy"])
    return step_fn(state["batch"])
