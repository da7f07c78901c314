# WRONG (method): measures instead of deriving. Builds GatedGPT on the meta device (no memory,
# any size) and runs FlopCounterMode on it: the counts are right, but the exercise forbids torch
# in the answer cell, so the trusted grader's method check takes the points.
def transformer_flops(n_layers, d_model, seq_len, vocab, batch, d_ff):
    with torch.device("meta"):
        model = GatedGPT(n_layers, d_model, seq_len, vocab, d_ff=d_ff)
        ids = torch.zeros(batch, seq_len, dtype=torch.long)
        forward, backward = count_flops(model, ids)
    return {"forward": forward, "backward": backward, "total": forward + backward}
