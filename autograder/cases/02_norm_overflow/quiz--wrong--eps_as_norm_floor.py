# WRONG: q4 reads eps as a floor on the norm; under the square root it is a floor on the squared
# norm, so the denominator never goes below sqrt(1e-12) = 1e-6.
q1 = "b"
q2 = "d"
q3 = "a"
q4 = "a"
