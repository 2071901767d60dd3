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


# The languages beyond en and zh (issue 43 item 2): one table each in Public/js/lib/i18n/<code>.js.
OTHER_LANGUAGES = ["zh-Hant", "ja", "ko", "es", "fr", "de", "vi", "ar"]
QUOTED = r"'((?:[^'\\]|\\.)*)'"


def unquote(text):
    return re.sub(r"\\(.)", r"\1", text)


def language_table(code):
    """{key: text | {category: text}} of Public/js/lib/i18n/<code>.js, read as source text; every
    entry is one line (`'key': 'text',` or `'key': { one: '…', other: '…' },`), and a key written
    twice is an error."""
    with open(os.path.join(LIB, "i18n", code + ".js"), encoding="utf-8") as f:
        body = re.search(r"^export default \{\n(.*?)^\};", f.read(), re.S | re.M).group(1)
    table = {}
    for line in body.splitlines():
        if not line.strip():
            continue
        plain = re.fullmatch(r"\s+%s: %s," % (QUOTED, QUOTED), line)
        plural = re.fullmatch(r"\s+%s: \{ (.*) \}," % QUOTED, line)
        assert plain or plural, (code, line)
        key = unquote((plain or plural).group(1))
        assert key not in table, (code, "written twice", key)
        if plain:
            table[key] = unquote(plain.group(2))
        else:
            table[key] = {c: unquote(t) for c, t in re.findall(r"(\w+): %s" % QUOTED, plural.group(2))}
    return table


def english_table():
    """{key: text | {category: text}} of the English table (i18n.js and i18n-stage.js)."""
    out = {}
    for name in ("i18n.js", "i18n-stage.js"):
        source = open(os.path.join(LIB, name), encoding="utf-8").read()
        body = re.search(r"^(?:export )?const en = \{\n(.*?)^\};", source, re.S | re.M).group(1)
        for key, text in re.findall(r"'([^']+)'\s*:\s*(\{(?:[^{}']|'(?:[^'\\]|\\.)*')*\}|'(?:[^'\\]|\\.)*')", body):
            out[key] = re.findall(QUOTED, text)
    return out


# Intl.PluralRules categories of each language (CLDR): a table may use no other.
CATEGORIES = {"zh-Hant": {"other"}, "ja": {"other"}, "ko": {"other"}, "vi": {"other"},
              "es": {"one", "many", "other"}, "fr": {"one", "many", "other"}, "de": {"one", "other"},
              "ar": {"zero", "one", "two", "few", "many", "other"}}


def test_every_language_has_every_english_key_and_no_other():
    """A key missing from a table shows English on that language's pages; an extra key is a typo or
    a leftover. Every language listed in i18n.js has its table, and those tables are the nine."""
    english = set(english_table())
    source = open(os.path.join(LIB, "i18n.js"), encoding="utf-8").read()
    listed = re.findall(r"\{ code: '([\w-]+)', name:", source)
    assert listed == ["en", "zh"] + OTHER_LANGUAGES
    for code in OTHER_LANGUAGES:
        keys = set(language_table(code))
        assert sorted(english - keys) == [], (code, "missing")
        assert sorted(keys - english) == [], (code, "not in English")


def test_every_text_keeps_the_english_placeholders_and_its_plural_forms():
    """{n}, {name}… are filled by the pages: a translation that drops or renames one shows a
    hole or a raw brace. A text by count names only its language's plural categories, and has `other`."""
    english = english_table()
    for code in OTHER_LANGUAGES:
        for key, text in language_table(code).items():
            wanted = set(re.findall(r"\{(\w+)\}", " ".join(english[key])))
            forms = text.values() if isinstance(text, dict) else [text]
            got = set(re.findall(r"\{(\w+)\}", " ".join(forms)))
            assert got == wanted, (code, key, wanted, got)
            if isinstance(text, dict):
                assert "other" in text and set(text) <= CATEGORIES[code], (code, key, sorted(text))


def test_chinese_tables_use_chinese_punctuation_and_no_simplified_leftovers():
    """Traditional Chinese, like Simplified, brackets and colons Chinese text full-width; and it has
    no characters that exist only in Simplified Chinese."""
    table = language_table("zh-Hant")
    bad = [(k, v) for k, v in table.items() if isinstance(v, str) and re.search(CJK + r"\s?[()]|[()]\s?" + CJK, v)]
    assert bad == []
    simplified = "们这说时对会国门书发开关闭选结检验证码删单页码网应显钮统计术览输读数让认为后请"
    leftovers = [(k, v) for k, v in table.items() if isinstance(v, str) and any(c in simplified for c in v)]
    assert leftovers == []
