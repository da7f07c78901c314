# Wrong: a consistent set of misconceptions: a new scaler skips a step, shuffling only reorders
# within batches, a bad checkpoint should be deleted, the fingerprint should name the machine.
q1 = "d"
q2 = "d"
q3 = "d"
q4 = "d"
