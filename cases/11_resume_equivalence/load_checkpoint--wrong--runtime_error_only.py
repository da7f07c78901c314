# Wrong: catches only RuntimeError, the error of the first damaged file it met; an empty file
# (EOFError), other bytes (UnpicklingError) or a file cut in half (OSError) get through.
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
    except RuntimeError as error:
        raise CheckpointError(f"{path}: damaged") from error
    if not isinstance(checkpoint, dict) or "fingerprint" not in checkpoint or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path}: another configuration")
    state = checkpoint["state"]
    for part, keys in ((state, STATE_KEYS), (state.get("rng", {}), RNG_KEYS), (state.get("loader", {}), LOADER_KEYS)):
        if any(key not in part for key in keys):
            raise CheckpointError(f"{path}: incomplete")
    return state
