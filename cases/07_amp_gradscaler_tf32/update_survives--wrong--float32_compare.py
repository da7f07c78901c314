# Wrong: adds and compares in float32 and never rounds the sum to the weight's dtype, so nearly
# every update "survives", also the ones a float16 or bf16 weight rounds away.
def update_survives(w, update, dtype):
    w32 = w.float()
    return (w32 + update) != w32
