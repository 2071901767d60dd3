"""The independent verifier published in docs/FAIRNESS.md, loaded from the document
itself (never a copy), as the reference for the pages' recheck (verify.js)."""
import os
import sys

# One loader of the script (Tests/peers/forgeries.py), shared with the peers tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from forgeries import load_script  # noqa: E402

_script = load_script()
globals().update({name: value for name, value in vars(_script).items() if not name.startswith("__")})
