# Wrong on every question: expects a compiled graph to be tied to values and exact bits, any
# Python bool to be fine, and the recompile limit to be an error.
q1 = "c"
q2 = "c"
q3 = "a"
q4 = "a"
