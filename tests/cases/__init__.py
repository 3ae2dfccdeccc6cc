"""Real-world cases from ../shared/cases/, each run on minigrad and PyTorch."""
