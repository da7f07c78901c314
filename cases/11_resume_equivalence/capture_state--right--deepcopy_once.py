# Right, written differently: gathers the live parts first (generator states through the
# generator objects themselves), then copies the whole dict with one copy.deepcopy.
def capture_state(run):
    live = {name: getattr(run, name).state_dict() for name in ("model", "optimizer", "scheduler", "scaler")}
    live["rng"] = dict(torch=torch.random.default_generator.get_state(), numpy=np.random.get_state(),
                       python=random.getstate(), cuda=torch.cuda.get_rng_state_all())
    live["loader"] = dict(generator=run.epoch_start, epoch=run.epoch, position=run.position)
    live["step"] = run.step
    return copy.deepcopy(live)
