# Wrong: removes its hooks only when the forward pass succeeds; a forward that raises leaves
# every hook attached to the model.
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

    handles = [m.register_forward_hook(make_hook(n)) for n, m in model.named_modules()]
    model(*inputs)
    for h in handles:
        h.remove()
    return found[0] if found else None
