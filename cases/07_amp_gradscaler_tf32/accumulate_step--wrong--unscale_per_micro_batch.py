# Wrong: unscales after every micro-batch's backward. GradScaler allows one unscale_ per optimizer
# step (the second call raises RuntimeError), and the gradients already unscaled would be mixed
# with scaled ones from the next micro-batch anyway.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for inputs, targets in micro_batches:
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss / len(micro_batches)).backward()
        scaler.unscale_(optimizer)
        losses.append(loss.item())
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return sum(losses) / len(losses), grad_norm.item()
