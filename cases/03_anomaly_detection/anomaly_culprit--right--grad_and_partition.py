# Right, written differently: set_detect_anomaly (which does not warn on entry) in try/finally,
# torch.autograd.grad on the inputs that need gradients, string methods instead of a regex, and
# the warnings recorded (then dropped) rather than ignored.
def anomaly_culprit(fn, *inputs):
    leaves = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        torch.autograd.set_detect_anomaly(True)
        try:
            total = fn(*inputs)
            if total.numel() != 1:
                total = total.sum()
            torch.autograd.grad(total, leaves)
        except RuntimeError as err:
            text = str(err)
            head, sep, tail = text.partition("' returned nan values in its ")
            if not sep or not head.startswith("Function '"):
                raise
            return head[len("Function '"):], int(tail.split("th output")[0])
        finally:
            torch.autograd.set_detect_anomaly(False)
    return (None, None)
