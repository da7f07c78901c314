# Wrong (the two-class attack): one exception class that is both a CheckpointError and a
# FileNotFoundError, raised for every failure, so the caller cannot tell "no checkpoint yet"
# from "a checkpoint that must not be used".
class CannotResume(CheckpointError, FileNotFoundError):
    pass


def load_checkpoint(path, config):
    try:
        checkpoint = torch.load(path, weights_only=False)
        state = checkpoint["state"]
        if checkpoint["fingerprint"] != config_fingerprint(config):
            raise ValueError("another configuration")
        for part, keys in ((state, STATE_KEYS), (state["rng"], RNG_KEYS), (state["loader"], LOADER_KEYS)):
            if not isinstance(part, dict) or any(key not in part for key in keys):
                raise ValueError("incomplete")
    except Exception as error:
        raise CannotResume(f"{path}: {error}") from error
    return state
