# WRONG: counts multiply-adds (m * n * k per product) instead of FLOPs (2 * m * n * k), so every
# figure is half of FlopCounterMode's.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (T * (4 * d * d + 3 * d * d_ff) + 2 * T * T * d) + T * d * V)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
