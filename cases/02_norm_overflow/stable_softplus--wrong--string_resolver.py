# Wrong (method rule): F.softplus found from a string by pydoc.locate.
import pydoc


def stable_softplus(x):
    return pydoc.locate("torch.nn.functional." + "softplus")(x)
