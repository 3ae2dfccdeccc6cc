"""``minigrad.nn`` (placeholder until modules land)."""
