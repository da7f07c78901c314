# Right, written differently: z minus torch.logsumexp, in the input dtype (in float16 this
# rounds the log-sum-exp to a float16 first; the error stays within a few ulps of the logits).
def log_softmax(z, dim=-1):
    """log(softmax(z)) along `dim`, finite wherever the true value is finite."""
    return z - torch.logsumexp(z, dim=dim, keepdim=True)
