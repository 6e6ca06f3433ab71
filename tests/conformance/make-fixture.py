#!/usr/bin/env python3
"""Extracts the objects libcuda builds for its compute channel group from a recorded trace
(shared line format) into the conformance fixture: the exact allocation parameters libcuda
passed, so the probe allocates with real parameters. Usage: make-fixture.py TRACE > FIXTURE"""
import re
import sys

WANT = {  # handle -> name, in allocation order; the 8 GR channels and their error notifiers
    0x5c000002: "device", 0x5c000003: "subdevice", 0x5c000005: "usermode",
    0x5c000009: "vaspace_ext", 0x5c00000a: "vaspace_plain",
    0x5c000015: "tsg_gr", 0x5c000016: "ctxshare", 0x5c000017: "userd",
}
CHANNELS = []
lines = open(sys.argv[1]).read().splitlines()
allocs = []
client = None
for n, line in enumerate(lines, 1):
    if " ALLOC64 " not in line or "status=0x0" not in line:
        continue
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    h, parent, cls = int(f["hNew"], 16), int(f["hParent"], 16), int(f["class"], 16)
    if cls == 0x41:
        client = h
        continue
    if cls == 0xc86f and parent == 0x5c000015:
        ap = bytes.fromhex(f["aparams"])
        notifier = int.from_bytes(ap[0:4], "little")
        CHANNELS.append((h, notifier))
    allocs.append((n, h, parent, cls, f.get("aparams")))
for i, (ch, notif) in enumerate(CHANNELS):
    WANT[notif] = "notifier%d" % i
    WANT[ch] = "channel%d" % i
    if i == 0:
        WANT[ch + 1] = "compute0"
print("# libcuda's compute channel group on an H200 (driver 580.159.04), extracted by")
print("# tests/conformance/make-fixture.py from fixtures/replay/h200-580.159.04-libcuda-context.log.")
print("# obj NAME handle parent class line params(hex of the class-sized alloc params, or null)")
print("client 0x%08x" % client)
for n, h, parent, cls, ap in allocs:
    if h in WANT:
        pname = "client" if parent == client else "0x%08x" % parent
        print("obj %s 0x%08x %s 0x%x %d %s" % (WANT[h], h, pname, cls, n, ap or "null"))
