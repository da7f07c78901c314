# Wrong: treats every RuntimeError it cannot parse as "no NaN" and returns (None, None), so an
# unrelated error (a shape mismatch, a failing backward) is hidden from the caller.
def anomaly_culprit(fn, *inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autograd.detect_anomaly():
                fn(*inputs).sum().backward()
        except RuntimeError as err:
            found = re.search(r"Function '(.+)' returned nan values in its (\d+)th output", str(err))
            if found:
                return found.group(1), int(found.group(2))
    return None, None
