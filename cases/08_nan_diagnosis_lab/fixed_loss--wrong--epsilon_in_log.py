# Wrong: adds an epsilon inside the log. No more NaN, but small probabilities are swamped by the
# epsilon, so the loss changes where the naive formula was finite and right.
def fixed_loss(logits, target):
    probs = torch.softmax(logits, dim=1)
    onehot = F.one_hot(target, logits.shape[1]).to(logits.dtype)
    return -(onehot * torch.log(probs + 1e-12)).sum(dim=1).mean()
