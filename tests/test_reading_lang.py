"""`/` picks the edition from Accept-Language (kb/site/lang.py)."""
from __future__ import annotations

import pytest

from kb.site.lang import edition_for


@pytest.mark.parametrize("header, edition", [
    ("zh-TW", "hant"),
    ("zh-tw,zh;q=0.9,en;q=0.8", "hant"),
    ("zh-Hant-TW", "hant"),
    ("zh-HK", "hant"),
    ("zh-MO;q=0.9", "hant"),
    ("zh_TW", "hant"),
    ("en-US,en;q=0.9,zh-TW;q=0.8", "hant"),       # only the Chinese entries decide
    ("zh-CN", "hans"),
    ("zh-Hans-CN,zh-TW;q=0.5", "hans"),
    ("zh-SG", "hans"),
    ("zh", "hans"),
    ("zh-TW;q=0.3,zh-CN;q=0.7", "hans"),         # by quality, not order
    ("zh-CN;q=0,zh-TW;q=0.2", "hant"),           # q=0 means "not this"
    ("zh-CN;q=0.5,zh-TW;q=0.5", "hans"),         # equal quality: header order
    ("en", "hans"),
    ("", "hans"),
    ("*", "hans"),
    ("zh-TW;q=abc", "hans"),                     # a malformed quality counts as 0
])
def test_edition_for(header, edition):
    assert edition_for(header) == edition
