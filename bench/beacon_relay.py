"""Two drand test relays on 127.0.0.1 for `bench/run-issue18.sh reveal-beacon` (the benchmark
cannot reach drand's relays either): the test chain of Tests/peers/drand_relay.py (quicknet's
scheme, a key of its own, a 3 s period), with every round of the next `--seconds` signed
before the relays start, as a real relay serves rounds it already has (py_ecc's signing takes
a good part of a second per round: done during the run it would be measured as the fetch).

Prints one line, the server flags that pin the chain and name both relays, then serves until
`--seconds` have passed (it stops by itself).

    .venv/bin/python bench/beacon_relay.py --seconds 240
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "peers"))
from drand_relay import DrandChain, Relay  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=240)
    args = parser.parse_args()
    chain = DrandChain(secret=0xBE7C4, period=3)
    first = chain.current_round()
    for number in range(first, first + args.seconds // chain.period + 2):
        chain.sign(number)
    relays = [Relay(chain), Relay(chain)]
    flags = chain.flags()
    for relay in relays:
        flags += ["--beacon-relay", relay.url]
    print(" ".join(flags), flush=True)
    time.sleep(max(0, chain.due(first) + args.seconds - time.time()))
    for relay in relays:
        relay.close()


if __name__ == "__main__":
    main()
