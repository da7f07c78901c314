# WRONG: checkpoints the fewest blocks that fit (least recompute only among those), as if each
# checkpointed block cost the same; one wide block can cost more than two narrow ones.
import itertools


def choose_checkpoints(blocks, budget):
    for size in range(len(blocks) + 1):
        fits = []
        for chosen in itertools.combinations(range(len(blocks)), size):
            held = sum(b[1] if i in chosen else b[0] for i, b in enumerate(blocks))
            if held <= budget:
                fits.append((sum(blocks[i][2] for i in chosen), held, list(chosen)))
        if fits:
            return min(fits)[2]
    raise ValueError("nothing fits")
