# Wrong by the exercise's method rule: x.double() is float64 under another name. The sum is
# accurate enough, but the text does not allow float64 (anything named `double`) here.
def kahan_sum(x):
    return x.double().sum().float().reshape(())
