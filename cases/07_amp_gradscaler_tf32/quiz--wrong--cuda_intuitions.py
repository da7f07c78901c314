# Wrong on every question: clips before unscaling, credits bf16's precision, carries the CUDA
# table to CPU, forgets that an overflow restarts the growth count, takes TF32 for a bf16 output,
# believes an island upcasts by itself, and thinks "highest" keeps convolutions in full float32.
# Each question is its own group, so only a wrong answer to all of them scores 0.
q1 = "a"
q2 = "b"
q3 = "a"
q4 = "b"
q5 = "a"
q6 = "a"
q7 = "a"
