# Right, written differently: one global module hook (torch.nn.modules.module.
# register_module_forward_hook) with a module -> name table, pytree flattening, and a
# context manager that removes the handle.
from torch.utils._pytree import tree_leaves


def first_nonfinite_module(model, *inputs):
    """Name the first module to finish whose output is not finite."""
    names = {id(m): n for n, m in model.named_modules()}
    order = []

    def watch(module, args, output):
        name = names.get(id(module))
        if name is None or order:
            return None
        if any(isinstance(v, torch.Tensor) and not bool(torch.isfinite(v).all()) for v in tree_leaves(output)):
            order.append(name)
        return None

    with torch.nn.modules.module.register_module_forward_hook(watch):
        model(*inputs)
    return order[0] if order else None
