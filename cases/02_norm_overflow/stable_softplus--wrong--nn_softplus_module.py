# Wrong by the exercise's method rule: the module torch.nn.Softplus is the built-in softplus
# in another form, which the text does not allow here.
def stable_softplus(x):
    return torch.nn.Softplus()(x)
