# Wrong: gives the unit roundoff 2**-(m+1) (half the gap) as eps instead of the gap 2**-m.
def format_limits(exponent_bits, mantissa_bits):
    bias = 2 ** (exponent_bits - 1) - 1
    return {
        "max": (2.0 - 2.0**-mantissa_bits) * 2.0**bias,
        "smallest_normal": 2.0 ** (1 - bias),
        "smallest_subnormal": 2.0 ** (1 - bias - mantissa_bits),
        "eps": 2.0 ** -(mantissa_bits + 1),
    }
