# Right, written differently: compares the float32 magnitude bits (sign cleared) with the bit
# pattern of the first value that overflows: 65520 is 0x477FF000, bfloat16's midpoint to 2**128 is
# 0x7F7F8000, and for float32 only the step to float32 itself can overflow (inf is 0x7F800000).
def detect_overflow(x, dtype):
    first_bits = {"float16": 0x477FF000, "bfloat16": 0x7F7F8000, "float32": 0x7F800000}
    if dtype not in first_bits:
        raise ValueError(f"dtype {dtype!r}?")
    values = np.asarray(x)
    with np.errstate(over="ignore"):
        magnitude = values.astype(np.float32).view(np.uint32) & np.uint32(0x7FFFFFFF)
    not_nan = magnitude <= 0x7F800000
    return np.isfinite(values) & not_nan & (magnitude >= first_bits[dtype])
