# RIGHT, written differently: the 6 * N * tokens rule with N the matmul weights, plus the
# attention term 12 B L T^2 d, for the total; forward is a third of it (an exact // division),
# backward the rest.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    n_matmul = n_layers * (4 * d_model**2 + 3 * d_model * d_ff) + d_model * vocab
    total = 6 * n_matmul * batch * seq_len + 12 * batch * n_layers * seq_len**2 * d_model
    forward = total // 3
    return {"forward": forward, "backward": total - forward, "total": total}
