# Wrong: clamps the probabilities away from 0 before the log. Finite, but every loss term above
# -log(1e-7) = 16.1 is cut down, including values the naive formula had right.
def fixed_loss(logits, target):
    probs = torch.softmax(logits, dim=1).clamp_min(1e-7)
    onehot = F.one_hot(target, logits.shape[1]).to(logits.dtype)
    return -(onehot * torch.log(probs)).sum(dim=1).mean()
