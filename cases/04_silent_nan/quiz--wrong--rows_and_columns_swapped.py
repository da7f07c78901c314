# Wrong on every question: reads x @ w as w @ x (q3: column 2), thinks log's backward turns the
# NaN into -1 (q1), confuses nan_origin's "none" with anomaly mode's silence (q2), and would run
# the whole training under the dispatch mode (q4).
q1 = "d"
q2 = "b"
q3 = "c"
q4 = "a"
