# Right, written differently: counts exponent codes and builds each limit with math.ldexp from
# integer significands.
def format_limits(exponent_bits, mantissa_bits):
    codes = 2**exponent_bits
    bias = codes // 2 - 1
    largest_exponent = (codes - 2) - bias
    smallest_exponent = 1 - bias
    all_ones = 2 ** (mantissa_bits + 1) - 1  # 1.111...1 as an integer
    return dict(
        max=math.ldexp(all_ones, largest_exponent - mantissa_bits),
        smallest_normal=math.ldexp(1, smallest_exponent),
        smallest_subnormal=math.ldexp(1, smallest_exponent - mantissa_bits),
        eps=math.ldexp(1, -mantissa_bits),
    )
