"""Cluster failover as the room sees it (issue 32), with real processes (the fixtures of
test_cluster.py): a Stop taken just before the owner dies is still revealed live on every
instance, and tick `seq` keeps increasing across owners.

- the host, on a follower, sends Stop over its WebSocket and gets the ack; the owner is
  killed (kill -9) right after the ack, in the middle of the slow-down, or just before the
  result: pages on both followers get `phase` stopping, the landing tick, `result` and
  `phase` revealed for that round, then the next `commit`, within the takeover plus the
  rest of the slow-down; the winners are the stored ones;
- over all of it (TOMBOLA_REVEAL_TAKEOVERS takeovers: 3 by default, one per moment; 20 with
  CI=true), no page ever sees a tick `seq` that is not above the previous one;
- an owner SIGSTOPped while rolling and resumed after another took over never sends a lower
  `seq`, to its own pages or anyone else's.
"""
import os
import signal
import time

from test_cluster import CODE, Page, cluster, export_rounds, wait_new_owner  # noqa: F401 (fixture)

TAKEOVERS = int(os.environ.get("TOMBOLA_REVEAL_TAKEOVERS", "20" if os.environ.get("CI") == "true" else "3"))
# Seconds after Stop's ack at which the owner dies: at once, mid slow-down, just before the
# result (the slow-down lasts 1.5 s from when Stop ran, which is a little before its ack).
MOMENTS = (0.0, 0.7, 1.3)
SLOW_DOWN = 1.5


def ticks_in_order(page):
    """Asserts the page's ticks carry strictly increasing seqs; returns the highest."""
    seqs = [m["seq"] for m in page.messages if m.get("type") == "tick"]
    for before, after in zip(seqs, seqs[1:]):
        assert after > before, "tick seq went from %d to %d on %s" % (before, after, page.url)
    return seqs[-1] if seqs else 0


class Host:
    """The host page on a follower: commands over its WebSocket, numbered like a page's."""

    def __init__(self, instance):
        self.page = Page(instance, host=True)
        self.page.wait_for(lambda m: m.get("type") == "role" and m["role"] == "host", what="role host")
        self.seq = int(time.time() * 1000)  # above any seq this client used before, across tests

    def command(self, name, timeout=15):
        self.seq += 1
        seq = self.seq
        mark = len(self.page.messages)
        self.page.send({"type": name, "seq": seq})
        answer = self.page.wait_for(lambda m: m.get("seq") == seq and m.get("type") in ("ack", "error"),
                                    timeout=timeout, what="answer to %s" % name, since=mark)
        assert answer["type"] == "ack", answer
        return answer


def test_a_stop_taken_as_the_owner_dies_is_revealed_live_on_every_follower(cluster):
    for _ in range(3):
        cluster.start()
    pages = []
    for attempt in range(TAKEOVERS):
        moment = MOMENTS[attempt % len(MOMENTS)]
        owner = cluster.owner()
        followers = cluster.others(owner)
        host = Host(followers[0])
        watchers = [Page(follower) for follower in followers]
        for page in watchers:
            page.wait_for(lambda m: m.get("type") == "state", what="state")
        pages += [host.page] + watchers
        before = owner.state()
        round_number = before["round"]
        host.command("start")
        for page in watchers:
            page.wait_for(lambda m: m.get("type") == "tick", what="tick")
        host.command("stop")
        acked_at = time.time()
        time.sleep(max(0.0, acked_at + moment - time.time()))
        marks = [len(page.messages) for page in watchers]
        owner.proc.send_signal(signal.SIGKILL)
        killed_at = time.time()
        owner.proc.wait(timeout=10)
        takeover = wait_new_owner(cluster, owner, killed_at)
        assert takeover < 3.0, "takeover took %.2f s" % takeover
        revealed_before = [any(m.get("type") == "result" and m["round"] == round_number for m in page.messages[:mark])
                           for page, mark in zip(watchers, marks)]
        if moment == 0.0:
            assert not any(revealed_before), "the old owner revealed before it died: not the case under test"
        for page, mark, shown in zip(watchers, marks, revealed_before):
            if shown:
                # The old owner landed just before it died (the machine was slow): its frames count.
                print("moment %.1f s: the old owner revealed round %d before it died" % (moment, round_number))
                mark = 0
            result = page.wait_for(lambda m: m.get("type") == "result" and m["round"] == round_number,
                                   timeout=10, what="result of round %d" % round_number, since=mark)
            seen_at = time.time()
            at = page.messages.index(result)
            # Then `phase` revealed and the next commitment, in that order (they may still be on the way).
            revealed = page.wait_for(lambda m: m == {"type": "phase", "phase": "revealed"}, what="phase revealed", since=at)
            page.wait_for(lambda m: m.get("type") == "commit" and m["round"] == round_number + 1, what="the next commit",
                          since=page.messages.index(revealed))
            if not shown:
                # What a page sees without a failure: stopping, the landing tick on the first winner, the result.
                replayed = page.messages[mark:page.messages.index(result)]
                assert {"type": "phase", "phase": "stopping"} in replayed, replayed[-5:]
                landing = [m for m in replayed if m.get("type") == "tick"]
                assert landing and landing[-1]["value"] == result["winners"][0], (landing[-1:], result["winners"])
                # Within the takeover plus the rest of the slow-down (and a loaded machine's slack).
                assert seen_at - killed_at < takeover + SLOW_DOWN + 2.0, "result %.2f s after the kill" % (seen_at - killed_at)
        results = [page.wait_for(lambda m: m.get("type") == "result" and m["round"] == round_number) for page in watchers]
        assert results[0]["winners"] == results[1]["winners"]
        _, rounds = export_rounds(cluster.owner())
        assert rounds[round_number] == results[0]["winners"], "the revealed winners are not the stored ones"
        for page in pages:
            ticks_in_order(page)
        for page in [host.page] + watchers:
            page.close()
        cluster.instances.remove(owner)
        owner.stop()
        cluster.start()
    for page in pages:
        ticks_in_order(page)


def test_a_paused_owner_resumed_never_sends_a_lower_tick_seq(cluster):
    owner = cluster.start()
    assert cluster.owner() is owner
    follower = cluster.start()
    on_owner = Page(owner)
    on_follower = Page(follower)
    for page in (on_owner, on_follower):
        page.wait_for(lambda m: m.get("type") == "state", what="state")
    host = Host(follower)
    host.command("start")
    on_owner.wait_for(lambda m: m.get("type") == "tick" and m["seq"] > 5, what="ticks")
    owner.proc.send_signal(signal.SIGSTOP)
    try:
        paused_at = time.time()
        highest = max(ticks_in_order(on_owner), ticks_in_order(on_follower))
        wait_new_owner(cluster, owner, paused_at)
        mark = len(on_follower.messages)
        first = on_follower.wait_for(lambda m: m.get("type") == "tick", what="the new owner's ticks", since=mark)
        assert first["seq"] > highest, "the new owner's ticks start at %d, after %d" % (first["seq"], highest)
        on_follower.wait_for(lambda m: m.get("type") == "tick" and m["seq"] > first["seq"] + 10, what="more ticks")
    finally:
        owner.proc.send_signal(signal.SIGCONT)
    # The resumed owner's overdue ticks are refused (lease, fence); its pages follow the new owner.
    resumed = len(on_owner.messages)
    on_owner.wait_for(lambda m: m.get("type") == "tick", what="ticks on the resumed instance", since=resumed)
    host.command("stop")
    for page in (on_owner, on_follower):
        page.wait_for(lambda m: m.get("type") == "phase" and m["phase"] == "revealed", what="reveal")
    for page in (on_owner, on_follower, host.page):
        ticks_in_order(page)
    stored = int(cluster.redis.cli("GET", "{d:%s}:tickseq" % CODE))
    assert stored == max(ticks_in_order(on_owner), ticks_in_order(on_follower)), stored
    for page in (on_owner, on_follower, host.page):
        page.close()
