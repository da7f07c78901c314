# RIGHT, written differently: a recursive search that decides block by block (checkpoint it or
# not), pruning choices that can no longer fit, then sorts the plans by the three rules.
def choose_checkpoints(blocks, budget):
    fits = []
    floor = [0] * (len(blocks) + 1)  # the least the blocks from i on can hold: all checkpointed
    for i in range(len(blocks) - 1, -1, -1):
        floor[i] = floor[i + 1] + blocks[i][1]

    def search(i, held, flops, chosen):
        if held + floor[i] > budget:
            return
        if i == len(blocks):
            fits.append((flops, held, chosen))
            return
        saved, kept, recompute = blocks[i]
        search(i + 1, held + kept, flops + recompute, chosen + [i])
        search(i + 1, held + saved, flops, chosen)

    search(0, 0, 0, [])
    if len(fits) == 0:
        raise ValueError(f"budget {budget} is too small even with every block checkpointed")
    fits.sort()
    return fits[0][2]
