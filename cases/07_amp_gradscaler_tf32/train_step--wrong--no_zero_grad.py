# Wrong: never clears the gradients, so backward adds to whatever the last step left.
def train_step(model, optimizer, scaler, inputs, targets, max_norm, device_type="cpu", amp_dtype=torch.bfloat16):
    with torch.autocast(device_type=device_type, dtype=amp_dtype):
        out = model(inputs)
        loss = F.mse_loss(out, targets) if targets.is_floating_point() else F.cross_entropy(out, targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item(), norm.item()
