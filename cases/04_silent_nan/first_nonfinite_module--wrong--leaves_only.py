# Wrong: hooks only the leaf modules, so a parent whose own code makes the NaN (or the root)
# is never named; a later leaf that merely carries the NaN on gets the blame.
def first_nonfinite_module(model, *inputs):
    """Name the first module to finish whose output is not finite."""
    found = []

    def make_hook(name):
        def hook(module, args, output):
            outs = output if isinstance(output, (tuple, list)) else (
                list(output.values()) if isinstance(output, dict) else [output])
            if not found and any(isinstance(o, torch.Tensor) and not torch.isfinite(o).all() for o in outs):
                found.append(name)
        return hook

    handles = [m.register_forward_hook(make_hook(n)) for n, m in model.named_modules()
               if len(list(m.children())) == 0]
    try:
        model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None
