# Right, written differently: anomaly mode switched through an ExitStack, torch.autograd.backward
# on the sum, the node's name read from the "Error detected in <name>." warning and the index from
# the error with str.split, and the warnings recorded, never printed.
import contextlib


def anomaly_culprit(fn, *inputs):
    with contextlib.ExitStack() as stack:
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        stack.enter_context(torch.autograd.set_detect_anomaly(True))
        result = fn(*inputs)
        try:
            torch.autograd.backward(result.sum() if result.numel() > 1 else result.reshape(()))
        except RuntimeError as err:
            text = str(err)
            if " returned nan values in its " not in text or not text.startswith("Function '"):
                raise
            index = int(text.rsplit(" returned nan values in its ", 1)[1].split("th output")[0])
            headers = [str(w.message) for w in caught if str(w.message).startswith("Error detected in ")]
            name = headers[-1][len("Error detected in "):].split(". Traceback")[0]
            return name, index
    return None, None
