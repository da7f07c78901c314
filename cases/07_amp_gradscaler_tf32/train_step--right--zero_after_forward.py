# Right, written differently: clears the stale gradients after the forward pass (still before
# backward), picks the loss from targets.dtype.is_floating_point, clips with foreach=True and
# reads both floats through .detach().item().
def train_step(model, optimizer, scaler, inputs, targets, max_norm, device_type="cpu", amp_dtype=torch.bfloat16):
    loss_fn = F.mse_loss if targets.dtype.is_floating_point else F.cross_entropy
    with torch.autocast(device_type=device_type, dtype=amp_dtype, enabled=True):
        loss = loss_fn(model(inputs), targets)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    total_norm = torch.nn.utils.clip_grad_norm_(list(model.parameters()), max_norm, foreach=True)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().item(), total_norm.detach().item()
