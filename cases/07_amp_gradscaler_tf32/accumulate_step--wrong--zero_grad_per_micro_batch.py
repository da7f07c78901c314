# Wrong: clears the gradients at the start of every micro-batch, so only the last micro-batch's
# gradient (divided by k) reaches the optimizer.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    losses = []
    for inputs, targets in micro_batches:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss / len(micro_batches)).backward()
        losses.append(loss.item())
    scaler.unscale_(optimizer)
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return sum(losses) / len(losses), grad_norm.item()
