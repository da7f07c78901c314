# Wrong type: returns the module object that produced the bad output, not its qualified name.
def first_nonfinite_module(model, *inputs):
    """Run ``model(*inputs)`` and find the first module whose output is not finite."""
    found = []

    def hook(module, args, output):
        items = output if isinstance(output, (tuple, list)) else (
            list(output.values()) if isinstance(output, dict) else [output])
        if not found and any(isinstance(o, torch.Tensor) and not torch.isfinite(o).all() for o in items):
            found.append(module)

    handles = [m.register_forward_hook(hook) for m in model.modules()]
    try:
        model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None
