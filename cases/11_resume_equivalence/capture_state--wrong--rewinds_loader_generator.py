# Wrong: reads the epoch-start generator state by rewinding the run's own loader generator to it.
# The captured values are right, but the live run changed: its next epoch repeats this one's
# shuffle instead of drawing a new one.
def capture_state(run):
    run.loader_generator.set_state(run.epoch_start)
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
