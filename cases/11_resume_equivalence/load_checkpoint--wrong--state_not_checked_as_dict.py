# Wrong: checks the keys but never that the state, its "rng" and its "loader" are dicts: a
# state that is a list of the right key names passes the key check, then state.get raises
# AttributeError (and a loader that is a string passes as complete).
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
    except FileNotFoundError:
        raise
    except Exception as error:
        raise CheckpointError(f"{path}: cannot be read ({type(error).__name__})") from error
    if not isinstance(checkpoint, dict) or "fingerprint" not in checkpoint or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path}: written for another configuration")
    state = checkpoint["state"]
    for part, keys in ((state, STATE_KEYS), (state.get("rng", {}), RNG_KEYS), (state.get("loader", {}), LOADER_KEYS)):
        missing = [key for key in keys if key not in part]
        if missing:
            raise CheckpointError(f"{path}: incomplete, missing {missing}")
    return state
