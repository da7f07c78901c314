# Wrong: rounds the update to the weight's dtype before adding, so the sum is rounded twice;
# an update just past a tie becomes the tie, and ties to even gives the weight back.
def update_survives(w, update, dtype):
    stored = w.to(dtype)
    return (stored + update.to(dtype)) != stored
