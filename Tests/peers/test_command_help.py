"""Every sub-command of `tombola` answers `--help` and `-h` with its usage on standard output
and exit status 0 (issue 43, item 5). The sub-commands are read from Sources/tombola/main.swift,
so one added there is checked without touching this file."""
import pathlib
import re
import subprocess

from test_fairness_script import tombola_binary

MAIN = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "tombola" / "main.swift"


def subcommands():
    names = re.findall(r'^case "([a-z][a-z-]*)":', MAIN.read_text(), re.MULTILINE)
    assert len(names) >= 9, names
    return names


def test_every_subcommand_answers_help_on_stdout_with_status_0(tmp_path):
    failures = []
    # The server itself (no sub-command) too.
    for command in [[]] + [[name] for name in subcommands()]:
        for flag in ("--help", "-h"):
            # cwd: nothing may be created by asking for help (backup, generate-history, admin-link).
            done = subprocess.run([tombola_binary(), *command, flag], capture_output=True, text=True,
                                  timeout=20, cwd=tmp_path, stdin=subprocess.DEVNULL)
            name = " ".join(["tombola", *command, flag])
            first = done.stdout.lstrip().splitlines()[0] if done.stdout.strip() else ""
            expected = "tombola " + command[0] if command else "tombola"
            if done.returncode != 0 or not first.lower().startswith("usage:") or expected not in first:
                failures.append("%s: status %d, stdout %r, stderr %r" % (name, done.returncode, done.stdout[:200], done.stderr[:200]))
    assert not failures, "\n".join(failures)
    assert list(tmp_path.iterdir()) == []
