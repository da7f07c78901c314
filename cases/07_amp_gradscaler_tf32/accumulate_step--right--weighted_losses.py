# Right, written differently: multiplies each loss by 1/k before scaling, records the losses as
# Python floats through .item() after backward, and averages them with statistics.fmean.
import statistics


def accumulate_step(model, optimizer, scaler, micro_batches, max_norm, loss_fn,
                    device_type="cpu", amp_dtype=torch.float16):
    weight = 1.0 / len(micro_batches)
    optimizer.zero_grad()
    seen = []
    for inputs, targets in micro_batches:
        with torch.autocast(device_type=device_type, dtype=amp_dtype):
            loss = loss_fn(model(inputs), targets)
        scaler.scale(loss * weight).backward()
        seen.append(loss.detach().item())
    scaler.unscale_(optimizer)
    total = torch.nn.utils.clip_grad_norm_(list(model.parameters()), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return statistics.fmean(seen), float(total)
