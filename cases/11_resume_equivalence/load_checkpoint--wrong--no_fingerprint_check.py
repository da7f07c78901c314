# Wrong: checks that the file is readable and complete but never compares the fingerprint, so
# a checkpoint of another configuration is resumed from.
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
    except FileNotFoundError:
        raise
    except Exception as error:
        raise CheckpointError(f"{path}: cannot be read") from error
    if not isinstance(checkpoint, dict) or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    state = checkpoint["state"]
    for part, keys in ((state, STATE_KEYS), (state.get("rng", {}), RNG_KEYS), (state.get("loader", {}), LOADER_KEYS)):
        if any(key not in part for key in keys):
            raise CheckpointError(f"{path}: incomplete")
    return state
