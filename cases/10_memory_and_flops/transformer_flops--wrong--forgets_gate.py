# WRONG: counts the gated MLP as an ordinary two-matrix MLP of width d_ff (up and down), missing
# the gate projection: 4 d d_ff instead of 6 d d_ff FLOPs per token and block.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (2 * T * (4 * d * d + 2 * d * d_ff) + 4 * T * T * d) + 2 * T * d * V)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
