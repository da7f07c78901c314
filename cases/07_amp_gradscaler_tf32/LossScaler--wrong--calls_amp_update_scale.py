# Wrong (method rule): update() calls torch._amp_update_scale_, the private op GradScaler is
# built on, which the exercise text does not allow. The scales are right; only the grader's
# source check of the answer cell catches it.
class LossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = torch.tensor(float(init_scale))
        self._tracker = torch.zeros((), dtype=torch.int32)
        self._settings = (float(growth_factor), float(backoff_factor), int(growth_interval))

    def get_scale(self):
        return self._scale.item()

    def scale(self, loss):
        return loss * self.get_scale()

    def unscale(self, grads):
        return [g / self.get_scale() for g in grads]

    def step(self, apply_fn, grads):
        grads = list(grads)
        if not all(bool(torch.isfinite(g).all()) for g in grads):
            return False
        apply_fn(self.unscale(grads))
        return True

    def update(self, found_inf):
        torch._amp_update_scale_(self._scale, self._tracker, torch.tensor(float(found_inf)), *self._settings)
