# Wrong: q2 credits bf16's precision instead of its range, and q3 carries the CUDA table to CPU.
q1 = "c"
q2 = "b"
q3 = "a"
q4 = "d"
q5 = "b"
