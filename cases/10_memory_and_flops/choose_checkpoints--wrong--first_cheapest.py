# WRONG: among the cheapest choices it keeps the first one found in list order, skipping rule 3
# (the least held bytes) of the three tie-breaks.
import itertools


def choose_checkpoints(blocks, budget):
    best = None
    for size in range(len(blocks) + 1):
        for chosen in itertools.combinations(range(len(blocks)), size):
            held = sum(b[1] if i in chosen else b[0] for i, b in enumerate(blocks))
            if held <= budget:
                key = (sum(blocks[i][2] for i in chosen), list(chosen))
                best = key if best is None else min(best, key)
    if best is None:
        raise ValueError("nothing fits")
    return best[1]
