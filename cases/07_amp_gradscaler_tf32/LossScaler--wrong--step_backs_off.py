# Wrong: step() halves the scale itself when it finds an inf, and update() then only handles
# growth. The scale changes inside step, and update(True) alone never backs off.
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
        if not all(torch.isfinite(g).all() for g in grads):
            self._scale *= self.backoff_factor
            self.good = 0
            return False
        apply_fn(self.unscale(grads))
        return True

    def update(self, found_inf):
        if found_inf:
            return
        self.good += 1
        if self.good == self.growth_interval:
            self._scale *= self.growth_factor
            self.good = 0
