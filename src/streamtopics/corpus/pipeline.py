"""The text pipeline: how raw text becomes a document's tokens, recorded so that text read later
(`transform`, `update`, `partial_fit_text`) is tokenised exactly as the training corpus was.

A `TextPipeline` is steps 1, 2 and 4 of `corpus.preprocess` plus what preprocessing learnt:

1. tokens: the built-in tokeniser (`tokenize`: Unicode NFKC, one apostrophe, lowercase, then
   runs of letters), or the user's function (``tokenizer="module:function"`` or a callable) from
   the text *as read* to a list of strings. A user's tokeniser sees the original text (a
   segmenter or a tagger may need its case and its characters) and each token it returns is
   then normalised as text is (`normalize`: NFKC, one apostrophe, lowercase) and stripped, so
   stop words and vocabularies compare alike; blank tokens are dropped. Anything but a list (or
   tuple) of strings, or a token holding a line break (a vocabulary is a word per line), is an
   `InputError` naming the tokeniser and the document;
2. phrases (optional, `corpus.phrases`): learnt pairs joined as ``a_b``;
3. stop words removed: the bundled English list or the user's, plus extra words
   (``extra_stopwords``); then the words preprocessing removed as too frequent (``max_df``), so
   that they never come back through a growing vocabulary.

The record (`as_dict`) holds the tokeniser's spec, the stop words (``"bundled"`` or the words),
the extra stop words, the phrases and the frequent words. A corpus directory keeps it in
``pipeline.json`` (`write_pipeline`, `read_pipeline`), a model file in its metadata
(``text_pipeline``); a tokeniser is imported when first used, so a model whose tokeniser cannot
be imported here still loads, and says what is missing only when it must tokenise.

>>> pipeline = TextPipeline(extra_stopwords=frozenset({"sat"}), frequent=frozenset({"cat"}))
>>> report = ReadReport()
>>> pipeline.content(pipeline.tokens("The cat sat on the mat."), report)
['mat']
>>> report.tokens_dropped
{'stop word': 4, 'in more than max_df of the documents': 1}
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Callable

from ..atomic import AtomicFile
from ..errors import InputError
from .corpus import ReadReport
from .phrases import Phrases

TOKEN_PATTERN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

STOP_WORD = "stop word"
FREQUENT = "in more than max_df of the documents"
BUNDLED = "bundled"
"""The record's name for the bundled English stop-word list."""
PIPELINE_FILE = "pipeline.json"
"""The file of a corpus directory that records its text pipeline."""


def normalize(text: str) -> str:
    """Step 1: NFKC, one apostrophe, lowercase."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower()


def tokenize(text: str) -> list[str]:
    """Steps 1-2 of the built-in tokeniser: the tokens of ``text`` in reading order."""
    return TOKEN_PATTERN.findall(normalize(text))


def load_stopwords(path=None) -> frozenset[str]:
    """The stop words of ``path`` (one per line; blank lines and ``#`` comments ignored), or the
    bundled English list when None. Entries are normalised like text (step 1)."""
    if path is None:
        text = resources.files("streamtopics").joinpath("data/stopwords_en.txt").read_text("utf-8")
    else:
        path = Path(path)
        if not path.is_file():
            raise InputError("no such stop-word file", path)
        text = path.read_bytes().decode("utf-8", errors="replace")
    words = (line.strip() for line in text.splitlines())
    return frozenset(normalize(word) for word in words if word and not word.startswith("#"))


def _word_set(words) -> frozenset[str] | None:
    """None, or stop words given as a file path or a collection of words (normalised)."""
    if words is None:
        return None
    if isinstance(words, (str, Path)):
        return load_stopwords(words)
    return frozenset(normalize(str(word)) for word in words)


def tokenizer_spec(function: Callable) -> str:
    """``module:qualified_name`` of a tokeniser function: what the record stores."""
    return f"{function.__module__}:{function.__qualname__}"


def _import_module(name: str):
    """The module ``name`` from ``sys.path``, else from the current directory: a console script
    (``streamtopics ...``) does not put it on ``sys.path`` as ``python -m`` does."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        here = os.getcwd()
        if error.name != name.partition(".")[0] or here in sys.path:
            raise
        sys.path.insert(0, here)
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(here)


def import_tokenizer(spec: str) -> Callable:
    """The function named by ``spec`` (``module:function``, dots allowed after the colon);
    `InputError` saying why when it cannot be imported or is not callable."""
    module_name, colon, name = spec.partition(":")
    if not colon or not module_name or not name:
        raise InputError(f"tokenizer {spec!r}: expected MODULE:FUNCTION, e.g. mypackage.text:words")
    try:
        value = _import_module(module_name)
    except ImportError as error:
        raise InputError(f"tokenizer {spec!r}: cannot import {module_name!r} ({error})") from None
    for part in name.split("."):
        if not hasattr(value, part):
            raise InputError(f"tokenizer {spec!r}: {module_name!r} has no {name!r}")
        value = getattr(value, part)
    if not callable(value):
        raise InputError(f"tokenizer {spec!r} is a {type(value).__name__}, not a function")
    return value


def _document_name(source_id, report: ReadReport) -> str:
    """A document as errors name it: its id in the source (or its number there) and the source."""
    name = f"#{report.documents_read}" if source_id is None else str(source_id)
    return name + (f" of {report.source}" if report.source else "")


@dataclass(frozen=True)
class TextPipeline:
    """How text becomes tokens (module docstring). ``tokenizer``: None (built-in) or a
    ``module:function`` spec; ``stopwords``: None for the bundled list, else the words;
    ``extra_stopwords`` added to them; ``phrases`` (`Phrases` or None) and ``frequent`` (the
    words preprocessing removed by ``max_df``): learnt by `preprocess_documents`."""

    tokenizer: str | None = None
    stopwords: frozenset | None = None
    extra_stopwords: frozenset = frozenset()
    phrases: Phrases | None = None
    frequent: frozenset = frozenset()
    function: Callable | None = field(default=None, compare=False, repr=False)

    @classmethod
    def configured(cls, tokenizer=None, stopwords=None, extra_stopwords=None) -> "TextPipeline":
        """A pipeline from the user's options: ``tokenizer`` a spec or a function (None: built
        in), ``stopwords`` and ``extra_stopwords`` a file path or words (None: the bundled list,
        and no extra words)."""
        function = None
        if callable(tokenizer):
            function, tokenizer = tokenizer, tokenizer_spec(tokenizer)
        elif tokenizer is not None:
            function = import_tokenizer(str(tokenizer))  # a bad spec fails before any reading
        return cls(tokenizer, _word_set(stopwords), _word_set(extra_stopwords) or frozenset(),
                   function=function)

    def with_overrides(self, tokenizer=None, stopwords=None) -> "TextPipeline":
        """This pipeline with the tokeniser and base stop words given (None: kept), its learnt
        phrases and frequent words kept."""
        if tokenizer is None and stopwords is None:
            return self
        given = TextPipeline.configured(tokenizer, stopwords)
        return replace(self, **({} if tokenizer is None else
                                {"tokenizer": given.tokenizer, "function": given.function}),
                       **({} if stopwords is None else {"stopwords": given.stopwords}))

    @functools.cached_property
    def stop_words(self) -> frozenset[str]:
        """Every stop word removed: the base list (bundled or given) and the extra words."""
        base = load_stopwords() if self.stopwords is None else self.stopwords
        return base | self.extra_stopwords

    @functools.cached_property
    def _removed(self) -> frozenset[str]:
        return self.stop_words | self.frequent

    @functools.cached_property
    def _tokenizer(self) -> Callable | None:
        if self.tokenizer is None:
            return None
        return self.function if self.function is not None else import_tokenizer(self.tokenizer)

    def tokens(self, text: str, source_id=None, report: ReadReport | None = None) -> list[str]:
        """Step 1-2 tokens of ``text``; errors name the document by its ``source_id`` (else its
        number, ``report.documents_read``) and ``report.source``."""
        function = self._tokenizer
        if function is None:
            return tokenize(text)
        result = function(text)
        document = "" if report is None else f" for document {_document_name(source_id, report)}"
        if not isinstance(result, (list, tuple)) or not all(isinstance(t, str) for t in result):
            raise InputError(f"tokenizer {self.tokenizer!r} returned {type(result).__name__} "
                             f"{result!r:.60}{document}, not a list of strings")
        tokens = [normalize(token).strip() for token in result]
        if any("\n" in token or "\r" in token for token in tokens):
            raise InputError(f"tokenizer {self.tokenizer!r} returned a token holding a line "
                             f"break{document}")
        return [token for token in tokens if token]

    def content(self, tokens: list[str], report: ReadReport) -> list[str]:
        """``tokens`` with phrases joined, then stop words and frequent words removed (counted
        in ``report``)."""
        if self.phrases is None and not self._removed:
            return tokens
        if self.phrases is not None:
            tokens = self.phrases.join(tokens, self.stop_words)
        content = [token for token in tokens if token not in self._removed]
        if len(content) < len(tokens):
            frequent = sum(token in self.frequent and token not in self.stop_words
                           for token in tokens) if self.frequent else 0
            report.drop_tokens(STOP_WORD, len(tokens) - len(content) - frequent)
            report.drop_tokens(FREQUENT, frequent)
        return content

    # --- the record ---------------------------------------------------------------------------
    def as_dict(self) -> dict:
        return {"tokenizer": self.tokenizer,
                "stopwords": BUNDLED if self.stopwords is None else sorted(self.stopwords),
                "extra_stopwords": sorted(self.extra_stopwords),
                "phrases": None if self.phrases is None else self.phrases.as_dict(),
                "frequent_words": sorted(self.frequent)}

    @classmethod
    def from_dict(cls, record: dict) -> "TextPipeline":
        """The pipeline of a record written by `as_dict` (ValueError when malformed)."""
        if not isinstance(record, dict):
            raise ValueError(f"a text pipeline record is a JSON object, not {type(record).__name__}")
        tokenizer, stopwords = record.get("tokenizer"), record.get("stopwords", BUNDLED)
        if tokenizer is not None and not isinstance(tokenizer, str):
            raise ValueError("text pipeline: 'tokenizer' must be a MODULE:FUNCTION string or null")
        words = {}
        for name in ("extra_stopwords", "frequent_words") + (() if stopwords == BUNDLED else ("stopwords",)):
            value = record.get(name, [])
            if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
                raise ValueError(f"text pipeline: {name!r} must be a list of words")
            words[name] = frozenset(value)
        phrases = record.get("phrases")
        return cls(tokenizer, words.get("stopwords"), words["extra_stopwords"],
                   None if phrases is None else Phrases.from_dict(phrases),
                   words["frequent_words"])


def write_pipeline(directory, pipeline: TextPipeline) -> None:
    """Record ``pipeline`` in the corpus directory ``directory`` (`PIPELINE_FILE`)."""
    fields = (f"  {json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}"
              for name, value in pipeline.as_dict().items())  # a field a line: diffable, short
    with AtomicFile(Path(directory) / PIPELINE_FILE) as out:
        out.write(("{\n" + ",\n".join(fields) + "\n}\n").encode())


def read_pipeline(directory) -> TextPipeline | None:
    """The text pipeline recorded in the corpus directory ``directory``, None if it has none
    (a directory made before, or by another tool); `InputError` naming the file if malformed."""
    path = Path(directory) / PIPELINE_FILE
    if not path.is_file():
        return None
    try:
        return TextPipeline.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as error:
        raise InputError(f"not a text pipeline record ({error})", path) from None
