# Wrong: copies the model's state_dict but not the optimizer's; its momentum buffers are the
# optimizer's live tensors and change with every later step.
def capture_state(run):
    return {
        "model": copy.deepcopy(run.model.state_dict()),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": copy.deepcopy(run.scheduler.state_dict()),
        "scaler": copy.deepcopy(run.scaler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate(),
                "cuda": torch.cuda.get_rng_state_all()},
        "loader": {"generator": run.epoch_start.clone(), "epoch": run.epoch, "position": run.position},
        "step": run.step,
    }
