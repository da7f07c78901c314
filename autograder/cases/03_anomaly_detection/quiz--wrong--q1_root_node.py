# Wrong: q1 takes the name for the graph's first node, q4 profiles before switching the tool off.
q1 = "c"
q2 = "b"
q3 = "c"
q4 = "a"
