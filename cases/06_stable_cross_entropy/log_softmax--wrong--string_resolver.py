# Wrong (method rule): F.log_softmax found from a concatenated string by pkgutil.resolve_name.
import pkgutil


def log_softmax(z, dim=-1):
    return pkgutil.resolve_name("torch.nn.functional:log_" + "softmax")(z.float(), dim).to(z.dtype)
