# Wrong (an attack, issue 20): finds the culprit correctly, but re-raises every other error as one
# class that inherits from both ValueError and RuntimeError, with the original message, hoping to
# match whichever class the caller expects. The errors must reach the caller unchanged: a class
# that is at once two of the classes this cell expects matches neither.
class _AnyError(ValueError, RuntimeError):
    pass


def anomaly_culprit(fn, *inputs):
    report = re.compile(r"Function '(.+)' returned nan values in its (\d+)th output")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autograd.detect_anomaly():
                fn(*inputs).sum().backward()
        except Exception as err:
            found = report.search(str(err))
            if found is None:
                raise _AnyError(*err.args) from None
            return found.group(1), int(found.group(2))
    return None, None
