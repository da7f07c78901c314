# Wrong: q1 treats 3e-8 as below the float16 halfway point 2**-25 (it is just above it).
q1 = "a"
q2 = "c"
q3 = "d"
