# Right, written differently: exact rational arithmetic with fractions.Fraction (largest finite
# value as 2**emax times (2 - 2**-m)), converted to Python floats at the end.
from fractions import Fraction


def format_limits(exponent_bits, mantissa_bits):
    emax = 2 ** (exponent_bits - 1) - 1
    emin = 1 - emax
    ulp_at_one = Fraction(1, 2**mantissa_bits)
    limits = {
        "max": (2 - ulp_at_one) * Fraction(2) ** emax,
        "smallest_normal": Fraction(2) ** emin,
        "smallest_subnormal": Fraction(2) ** emin * ulp_at_one,
        "eps": ulp_at_one,
    }
    return {key: float(value) for key, value in limits.items()}
