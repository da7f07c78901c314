# RIGHT, written differently: every choice as the bits of an integer, the best kept as a tuple key
# (recompute, held, sorted list) compared in one min() at the end.
def choose_checkpoints(blocks, budget):
    n = len(blocks)
    options = []
    for mask in range(2**n):
        chosen = [i for i in range(n) if mask >> i & 1]
        held = sum(blocks[i][1] if mask >> i & 1 else blocks[i][0] for i in range(n))
        if held <= budget:
            options.append((sum(blocks[i][2] for i in chosen), held, chosen))
    if not options:
        raise ValueError("no choice of blocks fits the budget")
    return min(options)[2]
