# Wrong: forgets the GradScaler state; the scale and its growth tracker after the replay do not
# match the original run's.
def replay_step(path, step_fn):
    state = torch.load(path, weights_only=False)
    step_fn.model.load_state_dict(state["model"])
    step_fn.optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"]["torch"])
    random.setstate(state["rng"]["python"])
    np.random.set_state(state["rng"]["numpy"])
    return step_fn(state["batch"])
