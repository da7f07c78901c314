# Wrong on every question: q1 expects a matrix row to equal the row of the product, q2 blames
# .item(), q3 uses float32's 24 significant bits (2**24 - 1) instead of its 23 fraction bits,
# q4 pins the CPU model.
q1 = "d"
q2 = "c"
q3 = 2**24 - 1
q4 = "a"
