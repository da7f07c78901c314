# Wrong: gives subnormals the exponent -bias (as if the zero exponent field meant 0 - bias)
# instead of the smallest normal exponent 1 - bias, so the smallest subnormal is halved.
def format_limits(exponent_bits, mantissa_bits):
    bias = 2 ** (exponent_bits - 1) - 1
    return {
        "max": (2.0 - 2.0**-mantissa_bits) * 2.0**bias,
        "smallest_normal": 2.0 ** (1 - bias),
        "smallest_subnormal": 2.0 ** (-bias - mantissa_bits),
        "eps": 2.0**-mantissa_bits,
    }
