# Wrong: q1 claims anomaly mode checks for inf only (it checks backward outputs for NaN only).
q1 = "C"
q2 = "C"
q3 = "B"
q4 = "D"
