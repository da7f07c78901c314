# Right, written differently: zero_grad(set_to_none=False), a separate loss function, and
# an explicit norm computed before clip_grad_norm_ clips.
def _amp_loss(outputs, targets):
    if targets.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return F.mse_loss(outputs, targets)
    return F.cross_entropy(outputs, targets)


def train_step(model, optimizer, scaler, inputs, targets, max_norm, device_type="cpu", amp_dtype=torch.bfloat16):
    model.zero_grad(set_to_none=False)
    with torch.autocast(device_type, amp_dtype):
        loss = _amp_loss(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().item(), norm.item()
