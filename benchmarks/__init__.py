"""Benchmarks: minigrad vs PyTorch CPU, as ratios measured in the same run."""
