# WRONG: transcribes TinyGPT's formula from section 3 (24 T d^2 dense FLOPs, an MLP of width 4d)
# instead of deriving GatedGPT's: d_ff is ignored.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    L, d, T, V, B = n_layers, d_model, seq_len, vocab, batch
    forward = B * (L * (24 * T * d**2 + 4 * T**2 * d) + 2 * T * d * V)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
