# Wrong: runs the saved batch through a freshly built trainer without loading the saved model,
# optimizer and scaler states, so a failure that depends on the trained weights disappears.
def diagnose(path):
    state = torch.load(path, weights_only=False)
    trainer = state["make_trainer"]()
    found = []  # the first non-finite result, as the dict to return
    backward_started = []

    class FirstNonFinite(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            node = torch._C._current_autograd_node()
            if node is not None:
                backward_started.append(True)
            op = str(func)
            if found or op.startswith(("aten.empty", "aten.new_empty")):
                return out
            results = tree_leaves(out)
            for i, arg in enumerate(func._schema.arguments):  # the tensors it writes in place
                if arg.alias_info is not None and arg.alias_info.is_write:
                    results += tree_leaves(args[i] if i < len(args) else kwargs.get(arg.name))
            if any(isinstance(t, torch.Tensor) and t.is_floating_point() and not torch.isfinite(t).all()
                   for t in results):
                if node is not None:
                    found.append({"phase": "backward", "op": op, "module": ModuleTracker.module_of(node)})
                elif backward_started:
                    found.append({"phase": "optimizer", "op": op, "module": None})
                else:
                    found.append({"phase": "forward", "op": op, "module": tracker.current()})
            return out

    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])
    with ModuleTracker(trainer.model) as tracker, FirstNonFinite():
        trainer(state["batch"])
    return found[0] if found else None
