"""Tokenisers for text without spaces between words, for ``tokenizer=`` and ``preprocess
--tokenizer`` (`corpus.pipeline`): the built-in tokeniser takes a run of letters for a word, so
a Chinese sentence comes out as one token.

`chinese` segments with jieba (``pip install streamtopics[chinese]``; its dictionary ships
with the package, nothing is downloaded), imported when first called, so the core library does
not depend on it. Like the built-in tokeniser it keeps the words holding a letter, so
punctuation, spaces and numbers do not become words.
"""

from __future__ import annotations

import logging
import unicodedata


def _has_letter(token: str) -> bool:
    return any(unicodedata.category(character).startswith("L") for character in token)


def chinese(text: str) -> list[str]:
    """The words of Chinese ``text`` by jieba's default (accurate) mode, e.g. "我爱北京天安门"
    -> ["我", "爱", "北京", "天安门"]."""
    import jieba

    jieba.setLogLevel(logging.WARNING)  # not its "Building prefix dict" lines on every run
    return [word for word in jieba.lcut(text) if _has_letter(word)]
