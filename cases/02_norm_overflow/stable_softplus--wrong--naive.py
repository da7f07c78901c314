# WRONG: log(1 + exp(x)) as written. exp overflows for x > 88.7 in float32 (x > 11.1 in
# float16), and 1 + exp(x) rounds to 1 for x below about -17, so the answer becomes 0.
def stable_softplus(x):
    return torch.log(1 + torch.exp(x))
