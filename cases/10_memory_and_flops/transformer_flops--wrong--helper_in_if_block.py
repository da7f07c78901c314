# Wrong (method rule): torch's FLOP formulas imported inside an `if` block.
if True:
    from torch.utils.flop_counter import bmm_flop, mm_flop


def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    tokens, d = batch * seq_len, d_model
    forward = 0
    for _ in range(n_layers):
        for k, n in ((d, 3 * d), (d, d), (d, d_ff), (d, d_ff), (d_ff, d)):
            forward += mm_flop((tokens, k), (k, n))
        forward += 2 * bmm_flop((batch, seq_len, d), (batch, d, seq_len))  # all heads at once
    forward += mm_flop((tokens, d), (d, vocab))
    return {"forward": forward, "backward": 2 * forward, "total": 3 * forward}
