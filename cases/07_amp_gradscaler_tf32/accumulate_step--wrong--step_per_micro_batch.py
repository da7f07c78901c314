# Wrong: runs the whole unscale / clip / step / update sequence after every micro-batch, so the
# optimizer takes k small steps and the scaler updates k times per call: no accumulation at all.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    losses, norms = [], []
    for inputs, targets in micro_batches:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss / len(micro_batches)).backward()
        scaler.unscale_(optimizer)
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm).item())
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return sum(losses) / len(losses), sum(norms)
