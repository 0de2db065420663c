"""Documents as the estimators accept them, checked as scikit-learn checks its inputs.

A topic model reads a bag of words: a D x V matrix of non-negative whole-number counts (dense,
any scipy sparse format, a pandas DataFrame whose columns are the words, or anything NumPy can
turn into an array), or a `Corpus`. `check_documents` turns array-likes into a checked CSR
matrix, or a `Corpus` when word names come with them (DataFrame columns, ``feature_names``), so
the estimators' own converters see one of the two. It raises ValueError (`InputError`) with
scikit-learn's wording where its estimator checks look for it: an empty matrix ("0 sample(s)",
"0 feature(s)"), NaN or infinity, complex numbers, negative values ("Negative values in data"),
and says where a count is not a whole number (Gibbs sampling assigns a topic to each token, so
fractional counts have no meaning here, unlike in scikit-learn's variational LDA).

`fit` records, for a DataFrame, ``feature_names_in_`` (scikit-learn's contract; the estimators'
``n_features_in_`` is their vocabulary size V); `transform` and later `partial_fit` calls check that V matches ("X has 3 features,
but OnlineLDA is expecting 4 features as input") and that DataFrame columns are the same words.
Lists (token-id sequences for the batch samplers) and `Corpus` values pass through unchanged;
raw text (strings, token lists, a Series of strings) is refused with a message that names the
two ways to count it (`load_corpus` or a CountVectorizer), not NumPy's "could not convert".
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..corpus.corpus import Corpus
from ..corpus.texts import is_raw_text
from ..errors import InputError


def _column_names(X) -> np.ndarray | None:
    """A DataFrame's column names when they are all strings (scikit-learn's rule), else None."""
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "iloc"):
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size and all(isinstance(name, str) for name in names):
        return names.astype(str)
    return None


def _first(mask_rows, mask_cols) -> str:
    return f"row {int(mask_rows[0])}, column {int(mask_cols[0])}"


def as_count_matrix(X, name: str) -> sp.csr_matrix:
    """``X`` (array-like or scipy sparse, 2-D) as a CSR matrix of int64 counts, or InputError
    naming the first offending entry."""
    if sp.issparse(X):
        matrix = sp.csr_matrix(X)
        matrix.sum_duplicates()
        data = matrix.data

        def positions(mask):
            return (np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))[mask],
                    matrix.indices[mask])
    else:
        array = np.asarray(X)
        if array.dtype.kind == "O":
            array = array.astype(np.float64)  # a dict or text in a cell raises TypeError here
        if array.ndim != 2:
            raise InputError(f"Expected a 2-D count matrix (documents x words), got a "
                             f"{array.ndim}-D array instead. Reshape your data: a single "
                             f"document is X.reshape(1, -1)")
        matrix, data = None, array.ravel()

        def positions(mask):
            return np.unravel_index(np.flatnonzero(mask), array.shape)
    shape = (matrix if matrix is not None else array).shape
    if shape[0] == 0:
        raise InputError(f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is "
                         f"required by {name}: no documents")
    if shape[1] == 0:
        raise InputError(f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is "
                         f"required by {name}: no words")
    if data.dtype.kind == "c":
        raise InputError("Complex data not supported: counts are whole numbers")
    if data.dtype.kind not in "biuf":
        raise InputError(f"counts must be numbers, got dtype {data.dtype}")
    if data.dtype.kind == "f":
        bad = ~np.isfinite(data)
        if bad.any():
            what = "NaN" if np.isnan(data[bad]).any() else "infinity"
            raise InputError(f"Input X contains {what} ({_first(*positions(bad))}): counts must "
                             f"be finite (no NaN or inf)")
    negative = data < 0
    if negative.any():
        raise InputError(f"Negative values in data passed to {name} ({_first(*positions(negative))}"
                         f" holds {data[negative][0]:g}): counts must be >= 0")
    if data.dtype.kind == "f":
        fractional = data != np.rint(data)
        if fractional.any():
            raise InputError(f"{name} needs counts that are whole numbers (a bag of words), but "
                             f"{_first(*positions(fractional))} holds {data[fractional][0]:g}; "
                             f"use CountVectorizer, not TfidfVectorizer")
    return sp.csr_matrix(matrix if matrix is not None else array, dtype=np.int64)


def check_documents(estimator, X, *, reset: bool, feature_names=None):
    """``X`` checked for ``estimator`` (see the module docstring): a `Corpus` or list unchanged,
    else a CSR count matrix, or a `Corpus` carrying word names (``feature_names``, else a
    DataFrame's columns). ``reset`` (fit, first partial_fit) records ``feature_names_in_`` and
    ``text_pipeline_`` (a `Corpus`' ``pipeline``, how its text was tokenised, else None);
    otherwise V and the names are checked against the fitted model's."""
    name = type(estimator).__name__
    if is_raw_text(X):
        raise InputError(f"{name} reads counts (a bag of words), and X is raw text (strings or "
                         f"token lists): turn it into a corpus first, with the bundled "
                         f"preprocessing (corpus = streamtopics.load_corpus(texts); "
                         f"model.fit(corpus); later texts: load_corpus(new_texts, "
                         f"vocabulary=model.vocabulary_)) or a CountVectorizer before the model "
                         f"in a Pipeline")
    if isinstance(X, Corpus) or isinstance(X, (list, tuple)):
        n_features, columns = (X.n_words if isinstance(X, Corpus) else None), None
        checked = X
    else:
        columns = _column_names(X)
        checked = as_count_matrix(X, name)
        n_features = checked.shape[1]
    if feature_names is not None:
        feature_names = np.asarray(list(feature_names), dtype=str)
        if n_features is None or feature_names.shape != (n_features,):
            raise InputError(f"feature_names has {feature_names.size} names but X has "
                             f"{n_features} word columns")
        checked = Corpus(checked.counts if isinstance(checked, Corpus) else checked, feature_names)
    elif columns is not None:
        checked = Corpus(checked, columns)
    if reset:
        estimator.text_pipeline_ = X.pipeline if isinstance(X, Corpus) else None
        if columns is not None:
            estimator.feature_names_in_ = columns
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return checked
    expected = getattr(estimator, "n_features_in_", None)
    if expected is not None and n_features is not None and n_features != expected \
            and not isinstance(X, Corpus):
        raise InputError(f"X has {n_features} features, but {name} is expecting {expected} "
                         f"features as input.")
    fitted_names = getattr(estimator, "feature_names_in_", None)
    if fitted_names is not None and columns is not None and not np.array_equal(columns, fitted_names):
        raise InputError("The feature names should match those that were passed during fit "
                         "(the same words in the same order).")
    if fitted_names is not None and columns is None and not isinstance(X, Corpus):
        warnings.warn(f"X does not have valid feature names, but {name} was fitted with feature "
                      f"names", UserWarning, stacklevel=3)
    if fitted_names is None and columns is not None:
        warnings.warn(f"X has feature names, but {name} was fitted without feature names",
                      UserWarning, stacklevel=3)
    return checked
