# Wrong: checks that the state has every top-level key but not the generators inside "rng" or
# the fields of "loader": a checkpoint without NumPy's generator state is accepted.
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
    except FileNotFoundError:
        raise
    except Exception as error:
        raise CheckpointError(f"{path}: cannot be read") from error
    if not isinstance(checkpoint, dict) or "fingerprint" not in checkpoint or "state" not in checkpoint:
        raise CheckpointError(f"{path}: not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path}: another configuration")
    state = checkpoint["state"]
    if any(key not in state for key in STATE_KEYS):
        raise CheckpointError(f"{path}: incomplete")
    return state
