# Wrong: hides the symptom: replaces a NaN loss by 0 (and inf by a huge number) instead of
# computing the true value.
def fixed_loss(logits, target):
    probs = torch.softmax(logits, dim=1)
    onehot = F.one_hot(target, logits.shape[1]).to(logits.dtype)
    return torch.nan_to_num(-(onehot * torch.log(probs)).sum(dim=1).mean())
