#!/usr/bin/env bash
# Times gamedissect against tshark on one large capture per protocol and dialect, plus a mixed
# one, in one run, alternating the tools, and prints every ratio and peak RSS.
#
#   bash scripts/bench-vs-tshark.sh [PACKETS] [ROUNDS] [--cpu] [NAME...]
#
# Each benchmark capture is a shipped capture replicated until it holds at least PACKETS packets
# (default 50000): copy i starts 50 ms after copy i-1 and has its own IPv4 addresses
# (10.<i/256>.<i%256>.<n>, n numbering the addresses of the original), so every copy is its own
# set of flows; copies are merged in time order. The mixed capture replicates every source to
# about PACKETS/10 packets each and merges them all. For memory, each capture is also played ten
# times in a row, each round on its own address block (first octet 10+r) and 700 s after the
# previous round's last packet (beyond the 600 s idle timeout and the 60 s sweep), so the file
# grows tenfold while the live flows do not. The ten-times captures are deleted once measured.
#
# Times are the median of ROUNDS (default 3) alternating runs, wall clock, or CPU seconds (user
# + system) with --cpu among the NAMEs, the fairer figure on a machine shared with other work;
# gamedissect runs on its default thread count. NAME limits the run to the named rows (e.g.
# flightgear-v2-pair).
# Needs: tshark, python3, GNU time (/usr/bin/time), cargo. Writes into target/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKETS=${1:-50000}
ROUNDS=${2:-3}
shift $(( $# < 2 ? $# : 2 ))

for tool in tshark python3 cargo /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install tshark time)" >&2; exit 1; }
done

cargo build --release --quiet
exec python3 - "$PACKETS" "$ROUNDS" target/release/gamedissect target/bench "$@" <<'PY'
import heapq, os, statistics, struct, subprocess, sys, time

packets_wanted, rounds, binary, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
cpu = "--cpu" in sys.argv[5:]
only = set(sys.argv[5:]) - {"--cpu"}
os.makedirs(out, exist_ok=True)

# (row name, shipped capture): one per protocol and dialect.
SOURCES = [
    ("quake3-legacy", "captures/quake3-openarena-legacy.pcap"),
    ("quake3-ioq3", "captures/quake3-ioq3-protocol.pcap"),
    ("srb2-2.1", "captures/srb2-2.1.25-session.pcap"),
    ("srb2-2.2", "captures/srb2-2.2.13-session.pcap"),
    ("flightgear-v1", "captures/flightgear-v1.pcap"),
    ("flightgear-v2-pair", "captures/flightgear-v2-pair.pcap"),
    ("gamestudio-a5-raw", "captures/gamestudio-a5-raw.pcap"),
    ("gamestudio-a6-raw", "captures/gamestudio-a6-raw.pcap"),
    ("gamestudio-a5-dplay4", "captures/gamestudio-a5-dplay4.pcap"),
    ("gamestudio-a6-dplay4", "captures/gamestudio-a6-dplay4.pcap"),
    ("gamestudio-a5-dplay8", "captures/gamestudio-a5-dplay8.pcap"),
    ("gamestudio-a6-dplay8", "captures/gamestudio-a6-dplay8.pcap"),
]

def read_pcap(path):
    """(header, [(ts_ns, record_header_rest, data)]) of a little- or big-endian classic pcap."""
    raw = open(path, "rb").read()
    magic = raw[:4]
    endian = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}[magic]
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    if struct.unpack(endian + "I", raw[20:24])[0] != 1:
        sys.exit(f"{path}: only Ethernet captures are replicated")
    recs, off = [], 24
    while off + 16 <= len(raw):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", raw[off:off + 16])
        data = raw[off + 16:off + 16 + incl]
        recs.append((sec * 10**9 + (frac if nano else frac * 1000), orig, data))
        off += 16 + incl
    return recs

def ip_checksum(header):
    s = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF

def readdress(data, mapping):
    """The frame with its IPv4 addresses mapped, IP checksum redone, UDP checksum cleared."""
    if len(data) < 34 or data[12:14] != b"\x08\x00":
        return data
    ihl = (data[14] & 0x0F) * 4
    b = bytearray(data)
    for at in (26, 30):
        b[at:at + 4] = mapping(bytes(b[at:at + 4]))
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", ip_checksum(bytes(b[14:14 + ihl])))
    if b[23] == 17 and len(b) >= 14 + ihl + 8:
        b[14 + ihl + 6:14 + ihl + 8] = b"\0\0"   # 0 = no UDP checksum, valid for IPv4
    return bytes(b)

EPOCH_NS = 1_700_000_000 * 10**9

def copies(recs, n, block=10, shift_ns=0, base=0):
    """n copies of recs, copy i 50 ms after copy i-1, the first at EPOCH_NS + shift_ns, as
    sorted-by-time iterables; base numbers the copies apart from another source's."""
    shift_ns += EPOCH_NS - recs[0][0]
    addrs = {}
    for _, _, d in recs:
        if len(d) >= 34 and d[12:14] == b"\x08\x00":
            for at in (26, 30):
                addrs.setdefault(d[at:at + 4], len(addrs) + 1)
    def copy(i):
        m = lambda a: bytes((block, (i >> 8) & 255, i & 255, addrs.get(a, 0) & 255))
        return ((t + (i - base) * 50_000_000 + shift_ns, o, readdress(d, m)) for t, o, d in recs)
    return [copy(i) for i in range(base, base + n)]

def write_pcap(path, streams):
    count = 0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for t, orig, d in heapq.merge(*streams, key=lambda r: r[0]):
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(d), orig))
            f.write(d)
            count += 1
    return count

def build(name, sources, per_source):
    path = f"{out}/{name}-{packets_wanted}.pcap"
    streams_of = lambda block, shift: [s for k, src in enumerate(sources)
        for s in copies(read_pcap(src), -(-per_source // len(read_pcap(src))), block, shift, k * 1000)]
    if not os.path.exists(path):
        write_pcap(path, streams_of(10, 0))
    path10 = f"{out}/{name}-{packets_wanted}-x10.pcap"
    # A round starts 700 s after the previous round's last packet, not its first: a round lasts
    # minutes (a GameStudio one 3: 3,600 copies 50 ms apart), and with rounds 700 s apart start to start the
    # last flows of one round were still live (600 s idle timeout, 60 s sweeps) while the next
    # round's began, so the longer capture held up to half as many flows again at once.
    span = max(((-(-per_source // len(recs)) - 1) * 50_000_000 + recs[-1][0] - recs[0][0])
               for recs in map(read_pcap, sources))
    gap = span + 700 * 10**9
    return path, lambda: write_pcap(path10, [s for r in range(10) for s in streams_of(10 + r, r * gap)]) and path10

rows = [(n, [s], packets_wanted) for n, s in SOURCES]
rows.append(("mixed", [s for _, s in SOURCES], packets_wanted // len(SOURCES) + 1))
rows = [r for r in rows if not only or r[0] in only]

def timed(cmd):
    """(seconds, peak RSS KiB) of one run, through GNU time (a child forked from Python would
    count Python's own pages in ru_maxrss); seconds of CPU (user + system) with --cpu, else of
    wall clock."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        print(f"{' '.join(cmd)}: exit status {r.returncode}", file=sys.stderr)
    user, system, kib = r.stderr.strip().splitlines()[-1].split()
    return (float(user) + float(system) if cpu else dt), int(kib)

def frames(path):
    import json
    return json.loads(subprocess.run([binary, "stats", "--format", "json", path], capture_output=True, text=True, check=True).stdout)["frames"]

print(f"median of {rounds} alternating rounds, {'CPU (user + system)' if cpu else 'wall clock'} seconds; gamedissect on its default threads; RSS in MiB")
print(f"{'capture':<22} {'packets':>8} | {'summary':>7} {'tshark':>7} {'ratio':>6} | {'json':>7} {'-T json':>7} {'ratio':>6} | {'RSS':>5} {'x10 RSS':>7} {'grow':>5}")
for name, sources, per_source in rows:
    path, make10 = build(name, sources, per_source)
    cmds = {
        "summary": [binary, "dissect", path],
        "tshark": ["tshark", "-n", "-r", path],
        "json": [binary, "dissect", "--format", "json", path],
        "tshark -T json": ["tshark", "-n", "-T", "json", "-r", path],
    }
    times = {k: [] for k in cmds}
    rss = {k: 0 for k in cmds}
    for _ in range(rounds):
        for k, cmd in cmds.items():
            dt, kib = timed(cmd)
            times[k].append(dt)
            rss[k] = max(rss[k], kib)
    med = {k: statistics.median(v) for k, v in times.items()}
    path10 = make10()
    rss10 = max(timed([binary, "dissect", "--format", "json", path10])[1] for _ in range(2))
    os.remove(path10)
    gd_rss = max(rss["summary"], rss["json"]) / 1024
    print(f"{name:<22} {frames(path):>8} | {med['summary']:>7.3f} {med['tshark']:>7.3f} {med['tshark'] / med['summary']:>5.1f}x"
          f" | {med['json']:>7.3f} {med['tshark -T json']:>7.3f} {med['tshark -T json'] / med['json']:>5.1f}x"
          f" | {gd_rss:>5.1f} {rss10 / 1024:>7.1f} {rss10 / rss['json']:>4.2f}x", flush=True)
print("\nratio = tshark's seconds / gamedissect's (the packets/s ratio); RSS = gamedissect's peak in")
print("summary or json; x10 RSS = json on the ten-times capture; grow = x10 RSS / json RSS")
PY
