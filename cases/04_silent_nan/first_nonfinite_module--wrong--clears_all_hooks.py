# Wrong: cleans up by emptying every module's hook table, which also deletes the hooks the
# caller had registered before.
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

    for n, m in model.named_modules():
        m.register_forward_hook(make_hook(n))
    try:
        model(*inputs)
    finally:
        for m in model.modules():
            m._forward_hooks.clear()
    return found[0] if found else None
