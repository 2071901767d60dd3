"""The `.xlsx` downloads (issue 43, item 3) opened with a real reader, openpyxl: the winners
(`export.xlsx`), the entrants (`entrants.xlsx`) and the audit log (`audit.xlsx`) of a check-in
draw of 1,050 entrants (Chinese names, emoji, names starting with `=`, `+`, `-`, `@`), each cell
checked against the CSV of the same data: text as text (a leading `=` stays text, never a
formula, with no `'` before it), numbers as numbers, times as dates at the CSV's wall-clock
time to the millisecond; the header bold."""
import csv
import datetime
import io

import openpyxl

from test_cluster import cluster  # noqa: F401 (fixture)
from test_draw_export import HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)

ENTRANTS = 1050
TRICKY = ["王小明", "李雷 🎉", "=HYPERLINK(\"http://evil\",\"x\")", "+1 (555) 0100", "-Ann-", "@team", "Zoë 👩‍👩‍👧", "a<b>&\"c\""]


def name(n):
    return TRICKY[n] if n < len(TRICKY) else "参与者 %04d" % n


def download(server, path, key=HOST_KEY):
    status, raw = server.request("GET", path, key=key, timeout=30)
    assert status == 200, (path, status, raw[:200])
    return raw


def csv_rows(raw):
    assert raw.startswith("\ufeff".encode())
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def same(xlsx, text, where):
    """One xlsx cell against its CSV field."""
    if isinstance(xlsx, datetime.datetime):
        # The CSV's ISO time with its offset; the sheet holds the same wall-clock time.
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
        assert abs((xlsx - moment).total_seconds()) < 0.0005, (where, xlsx, text)
    elif isinstance(xlsx, bool) or isinstance(xlsx, float):
        raise AssertionError((where, "unexpected cell type", xlsx))
    elif isinstance(xlsx, int):
        assert str(xlsx) == text, (where, xlsx, text)
    elif xlsx is None:
        assert text == "", (where, text)
    else:
        # The CSV guards a formula-like cell with `'`; the sheet needs no guard (inline strings).
        expected = text[1:] if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@", "\t", "\r") else text
        assert xlsx == expected, (where, xlsx, text)


def check_sheet(raw_xlsx, raw_csv, label, number_columns, time_columns):
    """Every cell of the only sheet against the CSV; returns the sheet's rows."""
    book = openpyxl.load_workbook(io.BytesIO(raw_xlsx))
    assert len(book.worksheets) == 1
    sheet = book.worksheets[0]
    rows = csv_rows(raw_csv)
    cells = list(sheet.iter_rows())
    assert len(cells) == len(rows), (label, len(cells), len(rows))
    for r, (row, line) in enumerate(zip(cells, rows)):
        values = [cell.value for cell in row] + [None] * (len(line) - len(row))
        assert len(values) == len(line), (label, r, values, line)
        for c, (value, text) in enumerate(zip(values, line)):
            same(value, text, (label, r + 1, rows[0][c]))
        # No cell is a formula, whatever it begins with.
        assert all(cell.data_type != "f" for cell in row), (label, r)
    header = rows[0]
    assert all(cell.font.b for cell in cells[0]), (label, "header not bold")
    for name_ in number_columns:
        column = header.index(name_)
        assert all(type(row[column].value) is int for row in cells[1:]), (label, name_)
    for name_ in time_columns:
        column = header.index(name_)
        assert all(isinstance(row[column].value, datetime.datetime) and row[column].is_date for row in cells[1:]), (label, name_)
    return cells


def test_every_xlsx_opens_in_openpyxl_with_the_csvs_cells(data_dir):
    server = Tombola(data_dir)
    try:
        prizes = [{"name": "一等奖 🎁", "count": 2}, {"name": "=SUM(1,2)", "count": 3}, {"name": "Mug", "count": 40}]
        assert server.command("config", {"pool": {"kind": "checkin"}, "perStop": 40, "prizes": prizes})[0] == 200
        fields = [{"key": "dept", "label": "部门"}, {"key": "ticket", "label": "=ticket"}]
        assert server.command("entries/open", {"fields": fields})[0] == 200
        ids = []
        for n in range(ENTRANTS):
            status, body = server.json("POST", "/api/draws/%s/join" % server.code,
                                       {"name": name(n), "fields": {"dept": "研发部" if n % 2 else "-sales", "ticket": "T%d" % n}})
            assert status == 201, (n, body)
            ids.append(body["entry"]["id"])
        status, _ = server.json("DELETE", "/api/draws/%s/entrants/%s" % (server.code, ids[-1]), {"reason": "=重复报名"}, HOST_KEY)
        assert status == 200
        assert server.command("entries/close")[0] == 200
        # One round per prize (2, 3 and 40 winners): 45 winners.
        winners = []
        for _ in range(3):
            assert server.command("start")[0] == 200
            status, body = server.command("stop")
            assert status == 200, body
            winners += body["result"]["winners"]
        status, body = server.command("void", {"round": 1, "winner": winners[0], "reason": "=未到场 🙅"})
        assert status == 200, body

        code = server.code
        cells = check_sheet(download(server, "/api/draws/%s/export.xlsx?lang=zh" % code),
                            download(server, "/api/draws/%s/export.csv?lang=zh" % code),
                            "winners", ["session", "round", "record"], ["at"])
        assert len(cells) == 1 + 46  # 45 winners and the void's replacement
        assert "=SUM(1,2)" in [row[2].value for row in cells]

        cells = check_sheet(download(server, "/api/draws/%s/entrants.xlsx" % code),
                            download(server, "/api/draws/%s/entrants.csv" % code),
                            "entrants", ["seq"], ["joined_at"])
        assert len(cells) == 1 + ENTRANTS
        assert [c.value for c in cells[0]] == ["seq", "id", "name", "部门", "=ticket", "joined_at", "removed"]
        assert [row[2].value for row in cells[1:len(TRICKY) + 1]] == TRICKY

        cells = check_sheet(download(server, "/api/draws/%s/audit.xlsx" % code),
                            download(server, "/api/draws/%s/audit.csv" % code),
                            "audit", ["index"], ["at"])
        # The host's actions with the reasons typed (the removal's, the void's), in chain order.
        actions = [row[3].value for row in cells[1:]]
        details = " ".join(row[4].value for row in cells[1:])
        assert "=重复报名" in details and "=未到场 🙅" in details, (actions, details)
        assert [row[0].value for row in cells[1:]] == list(range(len(cells) - 1))

        # The host's downloads: the entrants and the audit log need the host key.
        for path in ("entrants.xlsx", "audit.xlsx", "audit.csv"):
            assert server.request("GET", "/api/draws/%s/%s" % (code, path))[0] == 401, path
            assert server.request("GET", "/api/draws/%s/%s" % (code, path), key="wrong-key-" + "x" * 20)[0] in (401, 403), path
        # The winners' sheet is public like the CSV; without the key it has no names.
        public = openpyxl.load_workbook(io.BytesIO(download(server, "/api/draws/%s/export.xlsx" % code, key=None))).worksheets[0]
        assert all(row[12].value is None for row in public.iter_rows(min_row=2))
    finally:
        server.stop()


def test_in_cluster_mode_every_instance_serves_the_same_workbooks(cluster):
    """Cluster mode: a follower's downloads are the owner's, cell for cell, the audit log read
    from the draw's audit stream (docs/CLUSTER.md, *Audit log*)."""
    owner = cluster.start()
    assert cluster.owner() is owner
    follower = cluster.start()
    assert follower.command("config", {"pool": {"kind": "checkin"}, "perStop": 3})[0] == 200
    assert follower.command("entries/open", {"fields": [{"key": "dept", "label": "部门"}]})[0] == 200
    for n in range(6):
        status, body = follower.json("POST", "/api/draws/%s/join" % follower.code, {"name": name(n), "fields": {"dept": "=d%d" % n}})
        assert status == 201, body
    assert follower.command("entries/close")[0] == 200
    assert follower.command("start")[0] == 200
    assert follower.command("stop")[0] == 200
    code = follower.code
    for csv_path, xlsx_path, numbers, times, rows in (("export.csv", "export.xlsx", ["session", "round", "record"], ["at"], 1 + 3),
                                                      ("entrants.csv", "entrants.xlsx", ["seq"], ["joined_at"], 1 + 6),
                                                      ("audit.csv", "audit.xlsx", ["index"], ["at"], None)):
        books = []
        for instance in (follower, owner):
            raw = download(instance, "/api/draws/%s/%s" % (code, xlsx_path))
            cells = check_sheet(raw, download(instance, "/api/draws/%s/%s" % (code, csv_path)), xlsx_path, numbers, times)
            assert rows is None or len(cells) == rows, (xlsx_path, len(cells))
            books.append([[c.value for c in row] for row in cells])
        assert books[0] == books[1], xlsx_path
    actions = [row[3] for row in books[0][1:]]
    assert actions == ["takeover", "configure", "entries_open", "entries_close", "start", "stop"], actions
