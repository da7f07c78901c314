# Right, written differently: F.log_softmax then F.nll_loss, the path that equals F.cross_entropy.
def fixed_loss(logits, target):
    return F.nll_loss(F.log_softmax(logits, dim=1), target)
