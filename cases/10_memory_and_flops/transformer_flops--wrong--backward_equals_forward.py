# WRONG: forgets that the backward pass computes two products per matmul (input gradient and
# weight gradient): backward = forward, total = 2 x forward.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (2 * T * (4 * d * d + 3 * d * d_ff) + 4 * T * T * d) + 2 * T * d * V)
    return {"forward": forward, "backward": forward, "total": 2 * forward}
