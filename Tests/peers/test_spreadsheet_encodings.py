"""Spreadsheets as real offices save them: the same entrants written by Python's own codecs as
UTF-8, UTF-8 with BOM, UTF-16LE and UTF-16BE with BOM (Excel's "Unicode text") and GB18030
(Chinese Excel's CSV) give the same import preview and the same pool as the UTF-8 file; bytes
valid in none of them are refused with `import_bad_encoding` and their line, changing nothing.
"""
import codecs
import json
import urllib.error
import urllib.request

from test_draw_export import CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)

TEXT = ("姓名,票数,部门,工号\r\n"
        "李雷,3,研发,E1\r\n"
        "韩梅梅,1,市场部,E2\r\n"
        "Nguyễn Thị Minh Khai,2,Kế toán,E3\r\n"
        "Trần Hưng Đạo,1,\"Phòng, Kỹ thuật\",E4\r\n"
        "欧阳娜娜,5,,E5\r\n")

FILES = {
    "utf-8": TEXT.encode("utf-8"),
    "utf-8 with BOM": TEXT.encode("utf-8-sig"),
    "utf-16le": codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
    "utf-16be": codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
    "gb18030": TEXT.encode("gb18030"),
}
ENCODING = {"utf-8": "utf-8", "utf-8 with BOM": "utf-8", "utf-16le": "utf-16le", "utf-16be": "utf-16be", "gb18030": "gb18030"}


def send(server, method, path, body):
    request = urllib.request.Request(server.base + path, data=body, method=method)
    request.add_header("Authorization", "Bearer " + HOST_KEY)
    request.add_header("Content-Type", "text/csv")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_every_office_encoding_gives_the_entrants_of_the_utf8_file(data_dir):
    server = Tombola(data_dir)
    try:
        previews = {}
        for label, body in FILES.items():
            status, preview = send(server, "POST", "/api/draws/%s/import" % CODE, body)
            assert status == 200, (label, preview)
            assert preview["encoding"] == ENCODING[label], label
            assert preview["rejectedCount"] == 0, (label, preview["rejected"])
            previews[label] = preview
        expected = previews["utf-8"]["entrants"]
        assert [e["name"] for e in expected] == ["李雷", "韩梅梅", "Nguyễn Thị Minh Khai", "Trần Hưng Đạo", "欧阳娜娜"]
        assert expected[3]["group"] == "Phòng, Kỹ thuật"
        for label, preview in previews.items():
            assert preview["entrants"] == expected, label

        # The GB18030 file itself becomes the pool, as the UTF-8 one would.
        status, reply = send(server, "PUT", "/api/draws/%s/pool" % CODE, FILES["gb18030"])
        assert status == 200 and reply["count"] == 5 and reply["tickets"] == 12, reply
        config = server.json("GET", "/api/draws/%s/config" % CODE, key=HOST_KEY)[1]
        names = [e["name"] for e in config["pool"]["entrants"]]
        assert names == [e["name"] for e in expected], config
    finally:
        server.stop()


def test_bytes_valid_in_no_encoding_are_refused_with_their_line(data_dir):
    server = Tombola(data_dir)
    try:
        cases = [
            # 0xFF is neither UTF-8 nor GB18030.
            ("name\r\nAnn\r\nB\xffb\r\n".encode("latin-1"), 3),
            # A GB18030 lead byte before a line break: the UTF-8 error's line is reported.
            ("姓名\r\n".encode("utf-8") + b"Ann\r\n\x81\r\n", 3),
            # UTF-16LE with a lone high surrogate on line 2.
            (b"\xff\xfe" + "name\r\n".encode("utf-16-le") + b"\x00\xd8A\x00", 2),
            # UTF-16BE cut in the middle of a code unit.
            (b"\xfe\xff" + "name\r\nAnn".encode("utf-16-be") + b"\x00", 2),
        ]
        before = server.json("GET", "/api/draws/%s/config" % CODE, key=HOST_KEY)[1]
        for body, line in cases:
            for method, path in (("POST", "import"), ("PUT", "pool")):
                status, reply = send(server, method, "/api/draws/%s/%s" % (CODE, path), body)
                assert status == 400, (body, reply)
                assert reply["error"]["code"] == "import_bad_encoding" and reply["error"]["line"] == line, (body, reply)
                assert "UTF-16" in reply["error"]["message"]
        assert server.json("GET", "/api/draws/%s/config" % CODE, key=HOST_KEY)[1] == before
    finally:
        server.stop()
