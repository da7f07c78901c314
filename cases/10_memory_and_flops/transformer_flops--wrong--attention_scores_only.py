# WRONG: counts the attention scores Q K^T but not the product of the attention weights with V.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (2 * T * (4 * d * d + 3 * d * d_ff) + 2 * T * T * d) + 2 * T * d * V)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
