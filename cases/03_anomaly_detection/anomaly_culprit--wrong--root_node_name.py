# Wrong: reports the node at the root of the graph (the last forward operation) instead of the
# node anomaly mode named. Right for x / x, wrong as soon as the culprit is not the last operation.
def anomaly_culprit(fn, *inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            out = fn(*inputs)
            if out.dim() > 0:
                out = out.sum()
            try:
                out.backward()
            except RuntimeError as err:
                found = re.search(r"in its (\d+)th output", str(err))
                if found is None:
                    raise
                return out.grad_fn.name(), int(found.group(1))
    return None, None
