#!/usr/bin/env python3
"""recompress.py SRC_DIR DST_DIR LEVEL: a copy of a perf --threads directory
whose streams hold the same records, compressed again at zstd LEVEL.

Each stream's COMPRESSED records are decompressed in turn (one zstd stream per
file, as perf writes it) and what each one held is compressed again and
flushed on its own, so that the decompressed records, and where perf cut
them, stay the same: two copies at two levels hold the same samples, and a
report of either gives the same results. Needs the `zstandard` package
(scripts/bench-zstd-level.sh installs it into a temporary venv).
"""
import os, shutil, struct, sys
import zstandard as zstd
from perf_stream import COMPRESSED, records

MAX_RECORD = 0xffff - 8 - 1

def recompress(src, dst, level):
    buf = open(src, 'rb').read()
    d = zstd.ZstdDecompressor().decompressobj()
    c = zstd.ZstdCompressor(level=level).compressobj()
    out = bytearray()
    raw = 0
    for rtype, misc, rec in records(buf):
        if rtype is None:
            print(f'  trailing {len(rec)} bytes kept as is', file=sys.stderr)
        if rtype != COMPRESSED:
            out += rec
            continue
        plain = d.decompress(rec[8:])
        raw += len(plain)
        packed = c.compress(plain) + c.flush(zstd.COMPRESSOBJ_FLUSH_BLOCK)
        for at in range(0, len(packed), MAX_RECORD):
            part = packed[at:at + MAX_RECORD]
            out += struct.pack('<IHH', COMPRESSED, misc, 8 + len(part)) + part
    open(dst, 'wb').write(out)
    print(f'{os.path.basename(src)}: {len(buf)} -> {len(out)} bytes ({raw} raw)')

src, dst, level = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dst, exist_ok=True)
for name in sorted(os.listdir(src)):
    if name.startswith('data.'):
        recompress(os.path.join(src, name), os.path.join(dst, name), level)
    else:
        shutil.copy(os.path.join(src, name), os.path.join(dst, name))
