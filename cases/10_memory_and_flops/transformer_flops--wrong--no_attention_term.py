# WRONG: the bare 6 * N * tokens rule, with N the matmul weights: the attention products
# Q K^T and att V, which no parameter count sees, are left out.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    n = n_layers * (4 * d_model**2 + 3 * d_model * d_ff) + d_model * vocab
    tokens = batch * seq_len
    return {"forward": 2 * n * tokens, "backward": 4 * n * tokens, "total": 6 * n * tokens}
