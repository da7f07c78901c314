# Right, written differently: opens the file itself, sets the random states first (loading
# state dicts draws no random numbers), uses torch.random's setter and a dict of restorers.
def replay_step(path, step_fn):
    with open(path, "rb") as f:
        snapshot = torch.load(f, map_location="cpu", weights_only=False)
    torch.random.set_rng_state(snapshot["rng"]["torch"])
    np.random.set_state(snapshot["rng"]["numpy"])
    random.setstate(snapshot["rng"]["python"])
    restorers = {"model": step_fn.model, "optimizer": step_fn.optimizer, "scaler": step_fn.scaler}
    for key, target in restorers.items():
        target.load_state_dict(snapshot[key])
    inputs, targets = snapshot["batch"]
    return step_fn((inputs, targets))
