"""Corpus I/O: the `Corpus` value, readers, writers, preprocessing, streaming, synthetic data."""
