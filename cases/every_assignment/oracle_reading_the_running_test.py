# A generic attack: an answer that implements nothing and asks the kernel for the answer instead:
# the caller's locals, then the running test cell's own source (its asserts' expected sides,
# evaluated in a copy of the caller's namespace), with fplab's observe replaced by one that asks for
# an infinite tolerance. Against hidden tests that hold no answer it finds nothing.
import ast as _ast, linecache as _lc, sys as _sys
import fplab.observe as _fo
_real_observe = _fo.observe
_fo.observe = lambda name, value, **kw: _real_observe(name, value, rtol=1e300, atol=1e300)

def _oracle():
    frame = _sys._getframe(2)
    while frame is not None:
        for key, value in list(frame.f_locals.items()):
            if any(word in key.lower() for word in ("expect", "want", "ref", "answer", "truth")):
                return value
        source = "".join(_lc.getlines(frame.f_code.co_filename))
        if "observe" in source:
            try:
                tree = _ast.parse(source)
            except SyntaxError:
                tree = None
            for node in _ast.walk(tree) if tree else ():
                if isinstance(node, _ast.Compare) and node.comparators:
                    try:
                        return eval(compile(_ast.Expression(node.comparators[0]), "<o>", "eval"),
                                    dict(frame.f_globals), dict(frame.f_locals))
                    except Exception:
                        continue
        frame = frame.f_back
    return None

def $function(*args, **kwargs):
    return _oracle()
