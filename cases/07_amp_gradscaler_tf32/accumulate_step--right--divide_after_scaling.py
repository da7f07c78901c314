# Right, written differently: divides the scaled loss (not the loss) by k, keeps the losses as
# tensors and averages them with torch, zeroes gradients in place, clips the optimizer's params.
def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    batches = list(micro_batches)
    optimizer.zero_grad(set_to_none=False)
    losses = []
    for index in range(len(batches)):
        inputs, targets = batches[index]
        with torch.autocast(device_type, dtype=amp_dtype):
            outputs = model(inputs)
            losses.append(loss_fn(outputs, targets))
        (scaler.scale(losses[-1]) / len(batches)).backward()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    scaler.unscale_(optimizer)
    norm = nn.utils.clip_grad_norm_(params, max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    return torch.stack([l.detach().float() for l in losses]).mean().item(), norm.item()
