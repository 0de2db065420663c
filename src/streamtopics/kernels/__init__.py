"""Numba kernels: pure functions, arrays in, arrays out; each has a NumPy twin in tests/naive.py."""
