# Right, written differently: module names from global module hooks (filtered to this model) in
# forward and from full backward hooks in backward (no ModuleTracker); outputs and written arguments
# are gathered by walking the schema's returns and arguments; the check stops the step early by
# raising, and the phase comes from a flag set by the first op in the engine.
from torch.nn.modules import module as module_globals


class _Found(Exception):
    pass


def diagnose(path):
    snap = torch.load(path, weights_only=False)
    trainer = snap["make_trainer"]()
    for key in ("model", "optimizer", "scaler"):
        getattr(trainer, key).load_state_dict(snap[key])
    names = {id(m): n for n, m in trainer.model.named_modules()}
    forward_stack, backward_stack = [], []
    seen = {"backward": False}

    def pre(module, args):
        if id(module) in names:
            forward_stack.append(names[id(module)])

    def post(module, args, output):
        if id(module) in names:
            forward_stack.pop()

    def bw_pre(name):
        def hook(module, grad_output):
            backward_stack.append(name)
        return hook

    def bw_post(module, grad_input, grad_output):
        backward_stack.pop()

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            in_engine = torch._C._current_autograd_node() is not None
            seen["backward"] = seen["backward"] or in_engine
            if func.__name__.startswith(("empty", "new_empty")):
                return out
            written = [value for arg, value in zip(func._schema.arguments, args)
                       if arg.alias_info is not None and arg.alias_info.is_write]
            written += [kwargs[arg.name] for arg in func._schema.arguments[len(args):]
                        if arg.alias_info is not None and arg.alias_info.is_write and arg.name in (kwargs or {})]
            for leaf in tree_leaves([out, written]):
                if isinstance(leaf, torch.Tensor) and leaf.dtype.is_floating_point:
                    if torch.isnan(leaf).any() or torch.isinf(leaf).any():
                        if in_engine:
                            where = ("backward", backward_stack[-1] if backward_stack else None)
                        elif seen["backward"]:
                            where = ("optimizer", None)
                        else:
                            where = ("forward", forward_stack[-1] if forward_stack else None)
                        raise _Found({"phase": where[0], "op": str(func), "module": where[1]})
            return out

    handles = [module_globals.register_module_forward_pre_hook(pre),
               module_globals.register_module_forward_hook(post)]
    try:
        for name, m in trainer.model.named_modules():
            handles.append(m.register_full_backward_pre_hook(bw_pre(name)))
            handles.append(m.register_full_backward_hook(bw_post))
        torch.set_rng_state(snap["rng"]["torch"])
        random.setstate(snap["rng"]["python"])
        np.random.set_state(snap["rng"]["numpy"])
        with Watch():
            trainer(snap["batch"])
    except _Found as found:
        return found.args[0]
    finally:
        for h in handles:
            h.remove()
    return None
