"""Docs: generated blocks stay in sync with the code."""
