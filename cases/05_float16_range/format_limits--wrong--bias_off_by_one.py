# Wrong: uses a bias of 2**(e-1) instead of 2**(e-1) - 1, so every limit is off by a factor of 2.
def format_limits(exponent_bits, mantissa_bits):
    bias = 2 ** (exponent_bits - 1)
    return {
        "max": (2.0 - 2.0**-mantissa_bits) * 2.0**bias,
        "smallest_normal": 2.0 ** (1 - bias),
        "smallest_subnormal": 2.0 ** (1 - bias - mantissa_bits),
        "eps": 2.0**-mantissa_bits,
    }
