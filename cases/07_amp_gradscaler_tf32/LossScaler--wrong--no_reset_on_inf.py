# Wrong: an overflow backs the scale off but does not restart the count of finite steps,
# so the next growth comes too early.
class LossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = float(init_scale)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.good = 0

    def get_scale(self):
        return self._scale

    def scale(self, loss):
        return loss * self._scale

    def unscale(self, grads):
        return [g / self._scale for g in grads]

    def step(self, apply_fn, grads):
        grads = list(grads)
        if all(torch.isfinite(g).all() for g in grads):
            apply_fn(self.unscale(grads))
            return True
        return False

    def update(self, found_inf):
        if found_inf:
            self._scale *= self.backoff_factor
        else:
            self.good += 1
            if self.good % self.growth_interval == 0:
                self._scale *= self.growth_factor
