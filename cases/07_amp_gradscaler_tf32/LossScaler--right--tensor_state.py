# Right, written differently: the scale lives in a 0-d float64 tensor, the finite steps are
# counted modulo growth_interval, step() checks one concatenated tensor, unscale multiplies.
class LossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.s = torch.tensor(init_scale, dtype=torch.float64)
        self.factors = {"grow": growth_factor, "back": backoff_factor}
        self.interval, self.streak = growth_interval, 0

    def get_scale(self):
        return self.s.item()

    def scale(self, loss):
        return loss * self.s.to(loss.dtype)

    def unscale(self, grads):
        return [torch.mul(g, 1.0 / self.s.item()) for g in grads]

    def step(self, apply_fn, grads):
        grads = list(grads)
        everything = torch.cat([g.detach().double().flatten() for g in grads]) if grads else torch.zeros(0)
        if torch.isfinite(everything).all().item():
            apply_fn(self.unscale(grads))
            return True
        return False

    def update(self, found_inf):
        if found_inf:
            self.s = self.s * self.factors["back"]
            self.streak = 0
        else:
            self.streak = (self.streak + 1) % self.interval
            if self.streak == 0:
                self.s = self.s * self.factors["grow"]
