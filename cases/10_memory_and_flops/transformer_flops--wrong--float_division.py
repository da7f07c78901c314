# WRONG: the 6 * N * tokens rule plus attention for the total, then the forward as total / 3 with
# true division and int(): exact for small models, off by a few FLOPs past 2**53.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    n_matmul = n_layers * (4 * d_model**2 + 3 * d_model * d_ff) + d_model * vocab
    total = 6 * n_matmul * batch * seq_len + 12 * batch * n_layers * seq_len**2 * d_model
    forward = int(total / 3)
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
