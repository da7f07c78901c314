# Wrong: keeps torch's, NumPy's and Python's generators but not the CUDA generators' states; the
# same code on a GPU would resume with other dropout masks (and here the state lacks a key).
def capture_state(run):
    return {
        "model": copy.deepcopy(run.model.state_dict()),
        "optimizer": copy.deepcopy(run.optimizer.state_dict()),
        "scheduler": copy.deepcopy(run.scheduler.state_dict()),
        "scaler": copy.deepcopy(run.scaler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
        "loader": {"generator": run.epoch_start.clone(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
