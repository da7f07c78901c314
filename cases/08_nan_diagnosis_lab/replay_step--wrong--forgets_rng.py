# Wrong: restores model, optimizer and scaler but not the random states, so dropout draws a
# different mask and an ordinary step gives different bits.
def replay_step(path, step_fn):
    state = torch.load(path, weights_only=False)
    step_fn.model.load_state_dict(state["model"])
    step_fn.optimizer.load_state_dict(state["optimizer"])
    step_fn.scaler.load_state_dict(state["scaler"])
    return step_fn(state["batch"])
