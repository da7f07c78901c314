# Right, written differently: checks that the file exists before reading it (so every read
# error can become CheckpointError), and finds missing keys with set differences.
import errno


def load_checkpoint(path, config):
    if not os.path.isfile(path):
        raise FileNotFoundError(errno.ENOENT, "no checkpoint", os.fspath(path))
    try:
        checkpoint = torch.load(path, weights_only=False)
    except BaseException as error:
        raise CheckpointError(f"unreadable checkpoint {path}") from error
    if type(checkpoint) is not dict or not {"fingerprint", "state"} <= checkpoint.keys():
        raise CheckpointError(f"{path} is not a checkpoint")
    if checkpoint["fingerprint"] != config_fingerprint(config):
        raise CheckpointError(f"{path} belongs to another configuration")
    state = checkpoint["state"]
    missing = set(STATE_KEYS) - set(state)
    missing |= {f"rng.{k}" for k in set(RNG_KEYS) - set(state.get("rng", {}))}
    missing |= {f"loader.{k}" for k in set(LOADER_KEYS) - set(state.get("loader", {}))}
    if missing:
        raise CheckpointError(f"{path} is incomplete: {sorted(missing)}")
    return state
