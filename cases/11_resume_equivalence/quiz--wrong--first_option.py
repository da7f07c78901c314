# Wrong: answers "a" everywhere (scaler changes losses, the generator is the generator,
# restart after any error, a missing piece of state).
q1 = "a"
q2 = "a"
q3 = "a"
q4 = "a"
