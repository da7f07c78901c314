# Wrong: uses float32's unit roundoff for every dtype, so bfloat16 and float16 results get a
# tolerance thousands of times too tight (and float64 one far too loose).
def compiled_close(eager, compiled, n, terms):
    if not (eager.shape == compiled.shape == terms.shape) or eager.dtype != compiled.dtype:
        raise ValueError("shapes or dtypes differ")
    if not eager.dtype.is_floating_point:
        raise ValueError("need floating-point tensors")
    u = torch.finfo(eager.dtype).eps / 2
    if n < 1 or n * u >= 1:
        raise ValueError("no bound for this n")
    e, c = eager.detach().double(), compiled.detach().double()
    finite = torch.isfinite(e)
    if not torch.equal(finite, torch.isfinite(c)) or not torch.equal(e.isnan(), c.isnan()):
        return False
    if not torch.equal(e[torch.isinf(e)], c[torch.isinf(e)]):
        return False
    u32 = torch.finfo(torch.float32).eps / 2
    tolerance = 2 * (n * u32 / (1 - n * u32)) * terms.detach().double()
    return bool(((c - e)[finite].abs() <= tolerance[finite]).all())
