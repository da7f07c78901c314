# Wrong: clips the scaled gradients, then unscales. Every update shrinks to max_norm / scale
# and the returned norm is the scaled one.
def train_step(model, optimizer, scaler, inputs, targets, max_norm, device_type="cpu", amp_dtype=torch.bfloat16):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=amp_dtype):
        out = model(inputs)
        loss = F.mse_loss(out, targets) if targets.is_floating_point() else F.cross_entropy(out, targets)
    scaler.scale(loss).backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    return loss.item(), norm.item()
