# Wrong: backward of each micro-batch's mean loss without dividing by k: the accumulated gradient
# is the sum of k means, k times the gradient of the whole batch's mean loss.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    optimizer.zero_grad(set_to_none=True)
    losses = []
    for inputs, targets in micro_batches:
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss).backward()
        losses.append(loss.item())
    scaler.unscale_(optimizer)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return sum(losses) / len(losses), grad_norm.item()
