# RIGHT, written differently: lists every matrix product of GatedGPT's forward pass as (m, n, k),
# adds 2 m n k for each, and derives backward and total from it.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    tokens = batch * seq_len
    products = []
    for _ in range(n_layers):
        products += [(tokens, 3 * d_model, d_model),   # qkv
                     (tokens, d_model, d_model),       # proj
                     (tokens, d_ff, d_model),          # gate
                     (tokens, d_ff, d_model),          # up
                     (tokens, d_model, d_ff)]          # down
        # scores and weighted values, per sequence, all heads: T x T x d each
        products += [(seq_len, seq_len, d_model)] * (2 * batch)
    products.append((tokens, vocab, d_model))          # head
    forward = sum(2 * m * n * k for m, n, k in products)
    backward = forward * 2
    return dict(total=forward + backward, backward=backward, forward=forward)
