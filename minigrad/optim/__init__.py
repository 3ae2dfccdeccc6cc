"""``minigrad.optim`` (placeholder until optimizers land)."""
