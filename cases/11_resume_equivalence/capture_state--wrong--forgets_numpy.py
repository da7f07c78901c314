# Wrong: keeps torch's and Python's generators but forgets NumPy's, which draws the input noise.
def capture_state(run):
    return {
        "model": copy.deepcopy(run.model.state_dict()),
        "optimizer": copy.deepcopy(run.optimizer.state_dict()),
        "scheduler": copy.deepcopy(run.scheduler.state_dict()),
        "scaler": copy.deepcopy(run.scaler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "python": random.getstate(),
                "cuda": torch.cuda.get_rng_state_all()},
        "loader": {"generator": run.epoch_start.clone(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
