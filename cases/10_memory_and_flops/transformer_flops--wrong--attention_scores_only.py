# WRONG: counts the attention scores Q K^T but not the product of the attention weights with V.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (24 * T * d * d + 2 * T * T * d) + 2 * T * d * V)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
