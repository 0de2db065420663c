"""Plain NumPy twins of the numba kernels: slow, obvious, and the reference the kernels are tested
against. Each twin is named after its kernel and says which kernel it mirrors."""

import numpy as np
from scipy.special import digamma, gammaln, logsumexp
