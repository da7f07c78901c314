# Right, written differently: a nested checker returns the first problem as text (or None),
# and one raise turns it into CheckpointError; the read error is chained with "from".
def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(os.fspath(path), weights_only=False)
    except OSError as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise CheckpointError(f"{path}: unreadable") from error
    except Exception as error:
        raise CheckpointError(f"{path}: unreadable") from error

    def problem():
        if not isinstance(checkpoint, dict):
            return "not a dict"
        if "fingerprint" not in checkpoint or "state" not in checkpoint:
            return "no fingerprint or no state"
        if checkpoint["fingerprint"] != config_fingerprint(config):
            return "another configuration"
        state = checkpoint["state"]
        if not isinstance(state, dict):
            return "the state is not a dict"
        if not set(STATE_KEYS) <= set(state):
            return "the state is incomplete"
        for name, keys in (("rng", RNG_KEYS), ("loader", LOADER_KEYS)):
            if not isinstance(state[name], dict) or not set(keys) <= set(state[name]):
                return f"state[{name!r}] is not a complete dict"
        return None

    why = problem()
    if why:
        raise CheckpointError(f"{path}: {why}")
    return checkpoint["state"]
