"""The pages' string tables (Public/js/lib/i18n.js and i18n-stage.js), read as source text.
A key written twice in one table is an error JavaScript does not report: the later entry wins
silently (issue 34 found `host.checkin.none` defined twice, so a new message never showed).
Both languages carry the same keys."""
import os
import re

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Public", "js", "lib")


def table_keys(name):
    """{"en": [keys in order], "zh": [...]} of one file's `const en = {…}` / `const zh = {…}`."""
    with open(os.path.join(LIB, name), encoding="utf-8") as f:
        text = f.read()
    tables = {}
    for match in re.finditer(r"^(?:export )?const (en|zh) = \{\n(.*?)^\};", text, re.S | re.M):
        body = match.group(2)
        entries = [line for line in body.splitlines() if re.match(r"^\s+['\"\w]", line)]
        keys = re.findall(r"^\s+'([^']+)'\s*:", body, re.M)
        # Every entry line is a quoted key, so none escapes the duplicate check.
        assert len(keys) == len(entries), (name, match.group(1), set(entries) - {e for e in entries if e.strip().startswith("'")})
        tables[match.group(1)] = keys
    assert set(tables) == {"en", "zh"}, name
    return tables


def test_no_key_is_written_twice_in_a_language():
    main, stage = table_keys("i18n.js"), table_keys("i18n-stage.js")
    for language in ("en", "zh"):
        keys = main[language] + stage[language]
        assert len(keys) > 400
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        assert repeated == [], (language, repeated)


def test_both_languages_have_the_same_keys():
    main, stage = table_keys("i18n.js"), table_keys("i18n-stage.js")
    assert set(main["en"] + stage["en"]) == set(main["zh"] + stage["zh"])
