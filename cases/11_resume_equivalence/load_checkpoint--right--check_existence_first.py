# Right, written differently: checks that the file exists before reading it (so every read
# error can become CheckpointError), checks types with type(...) is dict, and finds missing keys
# with set differences.
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
    if type(state) is not dict:
        raise CheckpointError(f"{path}: the state is a {type(state).__name__}")
    missing = set(STATE_KEYS) - set(state)
    for name, keys in (("rng", RNG_KEYS), ("loader", LOADER_KEYS)):
        part = state.get(name, {})
        if type(part) is not dict:
            raise CheckpointError(f"{path}: state[{name!r}] is a {type(part).__name__}")
        missing |= {f"{name}.{k}" for k in set(keys) - set(part)}
    if missing:
        raise CheckpointError(f"{path} is incomplete: {sorted(missing)}")
    return state
