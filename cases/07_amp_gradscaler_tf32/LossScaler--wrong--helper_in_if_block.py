# Wrong (method rule): the GradScaler wrapper is bound inside an `if` block; the class is judged
# by the same list wherever it is bound.
if True:
    class LossScaler:
        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
            self._inner = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_factor=growth_factor,
                                               backoff_factor=backoff_factor, growth_interval=growth_interval)
            self._inner._lazy_init_scale_growth_tracker(torch.device("cpu"))

        def get_scale(self):
            return float(self._inner.get_scale())

        def scale(self, loss):
            return self._inner.scale(loss)

        def unscale(self, grads):
            return [g / self.get_scale() for g in grads]

        def step(self, apply_fn, grads):
            grads = list(grads)
            if not all(bool(torch.isfinite(g).all()) for g in grads):
                return False
            apply_fn(self.unscale(grads))
            return True

        def update(self, found_inf):
            state = self._inner._per_optimizer_states[0]
            state["found_inf_per_device"] = {torch.device("cpu"): torch.tensor(float(found_inf))}
            self._inner.update()
