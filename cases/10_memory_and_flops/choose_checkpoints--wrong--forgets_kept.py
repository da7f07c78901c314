# WRONG: counts a checkpointed block as holding nothing, forgetting the output it keeps (kept),
# so a choice can look as if it fits and hold more than the budget when measured.
import itertools


def choose_checkpoints(blocks, budget):
    best = None
    for size in range(len(blocks) + 1):
        for chosen in itertools.combinations(range(len(blocks)), size):
            held = sum(b[0] for i, b in enumerate(blocks) if i not in chosen)
            if held <= budget:
                key = (sum(blocks[i][2] for i in chosen), held, list(chosen))
                best = key if best is None else min(best, key)
    if best is None:
        raise ValueError("nothing fits")
    return best[2]
