#!/usr/bin/env python3
"""Writes a pcap of Quake 3 flows with random message bodies: the legacy XOR pad recovery's
worst inputs, for docs/performance.md and docs/protocols/quake3.md ("Cost").

    python3 scripts/hostile-quake3-flows.py OUT.pcap [--flows N] [--bytes SIZE] [--seed S]
                                            [--ack-every K] [--lengths L]

Each flow is one client port talking to 10.9.0.1:27960. Its datagrams carry sequenced netchan
headers and random bodies of 8 to 207 bytes; two of three go client -> server. Each flow's
unkeyed acknowledgements are fixed (so every body of a direction falls in one key-recovery
group), or, with --ack-every K, drawn anew every K datagrams of the flow (a new group each
time: the crafted flow of docs/protocols/quake3.md, K = 45). With --lengths L every body has
one of L lengths drawn once per flow, so that many messages end at one byte, as real ones do
(crafted to pass the recovery's evidence test and spend its credit). The flows take turns, one
datagram each, 100 datagrams a second in all, until the file reaches SIZE bytes (default
5,000,000). The layout follows `random_quake3_flow` in tests/hostile.rs.
"""

import argparse
import random
import struct


def ip_udp(src, dst, payload):
    """An IPv4 + UDP packet (link type 101, raw IP), checksums left zero."""
    (sip, sport), (dip, dport) = src, dst
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(
        ">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, bytes(sip), bytes(dip)
    )
    return ip + udp


class Flow:
    def __init__(self, index, rng, ack_every, lengths):
        self.client = ([10, 9, 1 + index // 250, 2 + index % 250], 27961 + index % 30000)
        self.rng = rng
        self.ack_every = ack_every
        self.sent = 0
        self.acks = rng.randbytes(12)
        self.lengths = [8 + rng.randrange(200) for _ in range(lengths)]

    def next_payload(self, server):
        """The flow's next datagram: (source, destination, payload)."""
        i = self.sent
        self.sent += 1
        if self.ack_every and i > 0 and i % self.ack_every == 0:
            self.acks = self.rng.randbytes(12)
        to_server = i % 3 != 0
        if self.lengths:
            body = self.rng.randbytes(self.rng.choice(self.lengths))
        else:
            body = self.rng.randbytes(8 + self.rng.randrange(200))
        p = struct.pack("<I", i + 1)
        if to_server:
            return self.client, server, p + b"\x34\x12" + self.acks + body
        return server, self.client, p + self.acks[:4] + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--flows", type=int, default=500)
    ap.add_argument("--bytes", type=int, default=5_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ack-every", type=int, default=0)
    ap.add_argument("--lengths", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    server = ([10, 9, 0, 1], 27960)
    flows = [Flow(k, rng, a.ack_every, a.lengths) for k in range(a.flows)]
    with open(a.out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))
        written, n = 24, 0
        while written < a.bytes:
            src, dst, payload = flows[n % len(flows)].next_payload(server)
            pkt = ip_udp(src, dst, payload)
            secs, usecs = 1_000 + n // 100, (n % 100) * 10_000
            f.write(struct.pack("<IIII", secs, usecs, len(pkt), len(pkt)) + pkt)
            written += 16 + len(pkt)
            n += 1
    print(f"{a.out}: {n} datagrams in {a.flows} flows, {written} bytes")


if __name__ == "__main__":
    main()
