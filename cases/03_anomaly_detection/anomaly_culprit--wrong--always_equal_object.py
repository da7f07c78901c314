# Wrong (the attack reported in issue #17, tried here too): no anomaly mode at all, only a tuple
# of objects that claim to equal anything. Every == in the kernel is True for them; the grader
# records them as not plain data, so no observation matches.
class _Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0


def anomaly_culprit(fn, *inputs):
    return (_Anything(), _Anything())
