# Right, written differently: torch.amp.autocast, gradients set to None by hand, the loss
# chosen by dtype, clipping over the optimizer's param_groups, detach() before float().
def train_step(model, optimizer, scaler, inputs, targets, max_norm, device_type="cpu", amp_dtype=torch.bfloat16):
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for p in params:
        p.grad = None
    with torch.amp.autocast(device_type, dtype=amp_dtype):
        prediction = model(inputs)
        if torch.is_floating_point(targets):
            loss = F.mse_loss(prediction, targets)
        else:
            loss = F.cross_entropy(prediction, targets)
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.unscale_(optimizer)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    return float(loss.detach()), float(total)
