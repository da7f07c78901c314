# Wrong: raises CheckpointError "from None", which drops torch.load's error; the text asks to
# keep it attached as the cause (raise ... from error).
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
    except FileNotFoundError:
        raise
    except Exception:
        raise CheckpointError(f"{path}: cannot be read") from None
    if not isinstance(checkpoint, dict) or "fingerprint" not in checkpoint or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path}: another configuration")
    state = checkpoint["state"]
    if not isinstance(state, dict) or not isinstance(state.get("rng"), dict) or not isinstance(state.get("loader"), dict):
        raise CheckpointError(f"{path}: malformed state")
    for part, keys in ((state, STATE_KEYS), (state["rng"], RNG_KEYS), (state["loader"], LOADER_KEYS)):
        if any(key not in part for key in keys):
            raise CheckpointError(f"{path}: incomplete")
    return state
