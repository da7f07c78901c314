# WRONG: returns None when nothing fits instead of raising ValueError, so a caller goes on with a
# plan that holds more than its budget.
def choose_checkpoints(blocks, budget):
    n = len(blocks)
    best = None
    for mask in range(2**n):
        held = sum(blocks[i][1] if mask >> i & 1 else blocks[i][0] for i in range(n))
        flops = sum(blocks[i][2] for i in range(n) if mask >> i & 1)
        key = (flops, held, [i for i in range(n) if mask >> i & 1])
        if held <= budget and (best is None or key < best):
            best = key
    return None if best is None else best[2]
