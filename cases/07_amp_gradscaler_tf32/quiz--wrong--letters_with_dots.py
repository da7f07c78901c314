# Wrong: the right choices, written as the list prints them ("c."), not as bare letters.
q1 = "c."
q2 = "a."
q3 = "b."
q4 = "d."
q5 = "b."
q6 = "b."
q7 = "b."
