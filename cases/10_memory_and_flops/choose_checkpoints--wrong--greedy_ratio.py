# WRONG: greedy, the most bytes saved per recompute FLOP first, until the stack fits: a block that
# saves a little cheaply is taken even when one larger block alone would have been cheaper.
def choose_checkpoints(blocks, budget):
    held = sum(saved for saved, _, _ in blocks)
    if sum(kept for _, kept, _ in blocks) > budget:
        raise ValueError("nothing fits")
    order = sorted(range(len(blocks)), key=lambda i: -(blocks[i][0] - blocks[i][1]) / blocks[i][2])
    chosen = []
    for i in order:
        if held <= budget:
            break
        chosen.append(i)
        held -= blocks[i][0] - blocks[i][1]
    return sorted(chosen)
