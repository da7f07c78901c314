# Wrong on every question: thinks a new trailing dimension changes nothing, that .item() keeps a
# branch in the graph, that comparing in float32 hides the rounding, and that past the limit
# the last graph is reused.
q1 = "d"
q2 = "a"
q3 = "d"
q4 = "b"
