# Wrong: clips the accumulated gradients while they are still scaled, so clip_grad_norm_ measures
# (and returns) S times the real norm, and the update shrinks to max_norm / S.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for inputs, targets in micro_batches:
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss / len(micro_batches)).backward()
        losses.append(loss.item())
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    return sum(losses) / len(losses), grad_norm.item()
