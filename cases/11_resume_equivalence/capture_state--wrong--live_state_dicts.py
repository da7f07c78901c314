# Wrong: keeps the state_dict()s themselves, whose tensors are the run's live tensors; the
# next step changes the "captured" weights and momentum buffers.
def capture_state(run):
    return {
        "model": run.model.state_dict(),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": run.scheduler.state_dict(),
        "scaler": run.scaler.state_dict(),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
                "cuda": torch.cuda.get_rng_state_all()},
        "loader": {"generator": run.epoch_start.clone(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
