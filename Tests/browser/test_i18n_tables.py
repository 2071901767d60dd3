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


PUBLIC = os.path.join(LIB, "..", "..")


def page_sources():
    """Every page's markup and module, as text: {path: text}."""
    out = {}
    for folder, _, files in os.walk(PUBLIC):
        for name in files:
            if name.endswith((".html", ".js")):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    out[os.path.relpath(path, PUBLIC)] = f.read()
    return out


def test_every_key_a_page_names_is_in_both_tables():
    """A key named in markup (data-i18n, -aria, -title, -placeholder) or code (`t('key')`, and the
    fixed head of `t(`prefix.${x}`)`) that no table has would show the key itself to the room,
    in English letters on a Chinese page (issue 39)."""
    main, stage = table_keys("i18n.js"), table_keys("i18n-stage.js")
    keys = {language: set(main[language] + stage[language]) for language in ("en", "zh")}
    missing, prefixes = [], []
    for path, text in page_sources().items():
        named = re.findall(r"data-i18n(?:-aria|-title|-placeholder)?=\"([^\"]+)\"", text)
        named += re.findall(r"\bt\('([a-z][\w.-]*)'", text)
        for key in named:
            for language in ("en", "zh"):
                if key not in keys[language]:
                    missing.append((path, language, key))
        for head in re.findall(r"\bt\(`([a-z][\w.-]*\.)\$\{", text):
            for language in ("en", "zh"):
                if not any(k.startswith(head) for k in keys[language]):
                    prefixes.append((path, language, head))
    assert missing == [], missing
    assert prefixes == [], prefixes


CJK = r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]"


def test_chinese_strings_use_chinese_punctuation():
    """In zh, brackets and colons next to Chinese text are full-width （）：, not ASCII (issue 39)."""
    source = open(os.path.join(LIB, "i18n.js"), encoding="utf-8").read() + open(os.path.join(LIB, "i18n-stage.js"), encoding="utf-8").read()
    bad = []
    for match in re.finditer(r"^const zh = \{\n(.*?)^\};", source, re.S | re.M):
        for key, value in re.findall(r"^\s+'([^']+)'\s*:\s*'((?:[^'\\]|\\.)*)'", match.group(1), re.M):
            if re.search(CJK + r"\s?[()]|[()]\s?" + CJK, value):
                bad.append((key, value))
    assert bad == [], bad
