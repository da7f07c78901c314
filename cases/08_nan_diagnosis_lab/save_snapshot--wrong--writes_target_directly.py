# Wrong: torch.save straight onto the target. Opening it for writing empties the old file, so a
# failure halfway (here: an object that cannot be pickled) destroys the previous snapshot.
def save_snapshot(path, state):
    torch.save(state, path)
