# Wrong: collects every module with a bad output, then returns the first in named_modules()
# order (parents and the root come first) instead of the order the modules finished.
def first_nonfinite_module(model, *inputs):
    """Name the first module to finish whose output is not finite."""
    bad = set()

    def make_hook(name):
        def hook(module, args, output):
            outs = output if isinstance(output, (tuple, list)) else (
                list(output.values()) if isinstance(output, dict) else [output])
            if any(isinstance(o, torch.Tensor) and not torch.isfinite(o).all() for o in outs):
                bad.add(name)
        return hook

    handles = [m.register_forward_hook(make_hook(n)) for n, m in model.named_modules()]
    try:
        model(*inputs)
    finally:
        for h in handles:
            h.remove()
    for name, _ in model.named_modules():
        if name in bad:
            return name
    return None
