# Wrong: torch.load with its default weights_only=True refuses the NumPy random state (a NumPy
# array inside), so even an intact checkpoint is reported as damaged.
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path)
    except FileNotFoundError:
        raise
    except Exception as error:
        raise CheckpointError(f"{path}: unreadable") from error
    if not isinstance(checkpoint, dict) or "fingerprint" not in checkpoint or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path}: another configuration")
    state = checkpoint["state"]
    for part, keys in ((state, STATE_KEYS), (state.get("rng", {}), RNG_KEYS), (state.get("loader", {}), LOADER_KEYS)):
        if any(key not in part for key in keys):
            raise CheckpointError(f"{path}: incomplete")
    return state
