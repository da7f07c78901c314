# Wrong: switches anomaly mode on and off with two plain calls; when fn raises, the second call
# is never reached and anomaly mode stays on for the rest of the session.
def anomaly_culprit(fn, *inputs):
    torch.autograd.set_detect_anomaly(True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(*inputs).sum()
        try:
            out.backward()
        except RuntimeError as err:
            found = re.search(r"Function '(.+)' returned nan values in its (\d+)th output", str(err))
            torch.autograd.set_detect_anomaly(False)
            if found is None:
                raise
            return found.group(1), int(found.group(2))
    torch.autograd.set_detect_anomaly(False)
    return None, None
