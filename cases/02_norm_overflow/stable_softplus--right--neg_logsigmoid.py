# RIGHT, written differently: log(1 + e^x) = -log(sigmoid(-x)), and F.logsigmoid computes the
# log of a sigmoid without overflow (allowed: only softplus itself is not).
def stable_softplus(x):
    return -F.logsigmoid(-x)
