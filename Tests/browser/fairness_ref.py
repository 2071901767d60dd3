"""The independent verifier published in docs/FAIRNESS.md, loaded from the document
itself (never a copy), as the reference for the pages' recheck (verify.js)."""
import os
import re
import types

_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "FAIRNESS.md")


def _load():
    with open(_DOC, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 1, "docs/FAIRNESS.md must carry exactly one python block"
    module = types.ModuleType("fairness_script")
    exec(compile(blocks[0], _DOC, "exec"), module.__dict__)
    return module


_script = _load()
globals().update({name: value for name, value in vars(_script).items() if not name.startswith("__")})
