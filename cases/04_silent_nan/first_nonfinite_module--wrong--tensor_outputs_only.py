# Wrong: only checks outputs that are a single tensor; a module returning a tuple or a dict
# with a NaN inside is skipped.
def first_nonfinite_module(model, *inputs):
    """Name the first module to finish whose output is not finite."""
    found = []

    def make_hook(name):
        def hook(module, args, output):
            if not found and isinstance(output, torch.Tensor) and not torch.isfinite(output).all():
                found.append(name)
        return hook

    handles = [m.register_forward_hook(make_hook(n)) for n, m in model.named_modules()]
    try:
        model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None
