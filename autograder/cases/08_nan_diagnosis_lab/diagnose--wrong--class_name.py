# Wrong: names the module by its class ("Exponential") instead of its qualified name in
# named_modules() ("block.1").
def diagnose(path):
    from torch.overrides import TorchFunctionMode

    state = torch.load(path, weights_only=False)
    trainer = state["make_trainer"]()
    trainer.model.load_state_dict(state["model"])
    trainer.optimizer.load_state_dict(state["optimizer"])
    trainer.scaler.load_state_dict(state["scaler"])

    running = []  # names of the modules whose forward is running, innermost last
    backward_started = []
    found = []

    def current_module():
        return running[-1] if running else None

    class TagNodes(TorchFunctionMode):
        """Note on each new autograd node which module's forward created it."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            todo = [t.grad_fn for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
            while todo:
                node = todo.pop()
                if node is None or "module" in node.metadata:
                    continue
                node.metadata["module"] = current_module()
                todo.extend(parent for parent, _ in node.next_functions)
            return out

    class FirstNonFinite(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kw = kwargs or {}
            out = func(*args, **kw)
            node = torch._C._current_autograd_node()
            if node is not None:
                backward_started.append(True)
            op = str(func)
            if found or op.startswith(("aten.empty", "aten.new_empty")):
                return out
            results = tree_leaves(out)
            for i, arg in enumerate(func._schema.arguments):
                if arg.alias_info is not None and arg.alias_info.is_write:
                    value = args[i] if i < len(args) else kw.get(arg.name)
                    results += tree_leaves(value)
            if any(isinstance(t, torch.Tensor) and t.is_floating_point() and not torch.isfinite(t).all()
                   for t in results):
                if node is not None:
                    found.append({"phase": "backward", "op": op, "module": node.metadata.get("module")})
                elif backward_started:
                    found.append({"phase": "optimizer", "op": op, "module": None})
                else:
                    found.append({"phase": "forward", "op": op, "module": current_module()})
            return out

    def enter(name):
        def pre_hook(module, args):
            running.append(name)
        return pre_hook

    def leave(module, args, output):
        running.pop()

    handles = []
    try:
        for name, module in trainer.model.named_modules():
            handles.append(module.register_forward_pre_hook(enter(type(module).__name__)))
            handles.append(module.register_forward_hook(leave))
        rng = state["rng"]
        torch.set_rng_state(rng["torch"])
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy"])
        with TagNodes(), FirstNonFinite():
            trainer(state["batch"])
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None
