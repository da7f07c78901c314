# Wrong on every question: takes the node's name for the graph's first node (q1) and the index
# for an artefact of x being used twice (q2), thinks check_nan=False switches everything off (q3),
# and profiles before switching the tool off (q4).
q1 = "c"
q2 = "c"
q3 = "a"
q4 = "a"
