# Right, written differently: restores the three state dicts in a loop over (object, key) pairs,
# unpacks the random states into local names, sets Python's and NumPy's before torch's.
def replay_step(path, step_fn):
    snapshot = torch.load(os.fspath(path), weights_only=False)
    for part, key in ((step_fn.optimizer, "optimizer"), (step_fn.model, "model"), (step_fn.scaler, "scaler")):
        part.load_state_dict(snapshot[key])
    torch_state, python_state, numpy_state = (snapshot["rng"][k] for k in ("torch", "python", "numpy"))
    random.setstate(python_state)
    np.random.set_state(numpy_state)
    torch.set_rng_state(torch_state)
    batch = tuple(snapshot["batch"])
    return step_fn(batch)
