# Wrong: drops the run's live iterator so that the run "continues like a restored one". The
# captured values are right, but the live run changed: in the middle of an epoch it rebuilds the
# epoch from a generator that has moved on, and trains on another shuffle.
def capture_state(run):
    state = {
        "model": copy.deepcopy(run.model.state_dict()),
        "optimizer": copy.deepcopy(run.optimizer.state_dict()),
        "scheduler": copy.deepcopy(run.scheduler.state_dict()),
        "scaler": copy.deepcopy(run.scaler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
                "cuda": torch.cuda.get_rng_state_all()},
        "loader": {"generator": run.epoch_start.clone(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
    run.batches = None
    return state
