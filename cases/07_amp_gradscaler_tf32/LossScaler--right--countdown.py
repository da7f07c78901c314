# Right, written differently: a countdown to the next growth, multiplication by the
# reciprocal, and one stacked finiteness check.
import math


class LossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.current = init_scale
        self.up, self.down, self.every = growth_factor, backoff_factor, growth_interval
        self.until_growth = growth_interval

    def get_scale(self):
        return float(self.current)

    def scale(self, loss):
        return self.current * loss

    def unscale(self, grads):
        inverse = 1.0 / self.current
        return [torch.mul(g, inverse) for g in grads]

    def step(self, apply_fn, grads):
        grads = list(grads)
        ok = all(math.isfinite(v) for g in grads for v in g.double().flatten().tolist())
        if ok:
            apply_fn(self.unscale(grads))
        return ok

    def update(self, found_inf):
        if found_inf:
            self.current = self.current * self.down
            self.until_growth = self.every
            return
        self.until_growth -= 1
        if self.until_growth == 0:
            self.current = self.current * self.up
            self.until_growth = self.every
