# Wrong: forgets the implied leading 1 in the largest value (uses 0.111...1 instead of 1.111...1).
def format_limits(exponent_bits, mantissa_bits):
    bias = 2 ** (exponent_bits - 1) - 1
    return {
        "max": (1.0 - 2.0**-mantissa_bits) * 2.0**bias,
        "smallest_normal": 2.0 ** (1 - bias),
        "smallest_subnormal": 2.0 ** (1 - bias - mantissa_bits),
        "eps": 2.0**-mantissa_bits,
    }
