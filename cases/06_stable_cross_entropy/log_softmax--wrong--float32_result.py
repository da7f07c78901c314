# Wrong: stable, but upcasts float16 input and returns float32.
def log_softmax(z, dim=-1):
    """log(softmax(z)) along `dim`, finite wherever the true value is finite."""
    x = z.float()
    x = x - x.amax(dim=dim, keepdim=True).detach()
    return x - x.exp().sum(dim=dim, keepdim=True).log()
