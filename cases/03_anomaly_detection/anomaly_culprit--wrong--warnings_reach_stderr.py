# Wrong: correct answers, but the warnings of detect_anomaly() (on entry, and the forward
# traceback on failure) are not caught, so they reach stderr and nbgrader scores the test 0.
def anomaly_culprit(fn, *inputs):
    try:
        with torch.autograd.detect_anomaly():
            fn(*inputs).sum().backward()
    except RuntimeError as err:
        found = re.search(r"Function '(.+)' returned nan values in its (\d+)th output", str(err))
        if found is None:
            raise
        return found.group(1), int(found.group(2))
    return None, None
