# Wrong: saves the loader generator's state as it is now. In the middle of an epoch the
# generator has already moved past that epoch's draws, so a resume reshuffles the rest.
def capture_state(run):
    return {
        "model": copy.deepcopy(run.model.state_dict()),
        "optimizer": copy.deepcopy(run.optimizer.state_dict()),
        "scheduler": copy.deepcopy(run.scheduler.state_dict()),
        "scaler": copy.deepcopy(run.scaler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
                "cuda": torch.cuda.get_rng_state_all()},
        "loader": {"generator": run.loader_generator.get_state(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
