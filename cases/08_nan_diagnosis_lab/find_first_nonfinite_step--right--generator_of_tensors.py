# Right, written differently: a generator over every tensor of a step, torch.isfinite per tensor
# with all(), skipping None and integer tensors explicitly, enumerate over range.
def _tensors_of(result):
    yield result["loss"]
    for group in ("grads", "params"):
        for t in result[group].values():
            if t is not None and t.is_floating_point():
                yield t


def find_first_nonfinite_step(run_step, max_steps):
    for i in range(max_steps):
        if not all(bool(torch.isfinite(t).all()) for t in _tensors_of(run_step(i))):
            return i
    return None
