"""perf_stream.py: the top-level records of one stream of a perf --threads
directory (`data.N`), for the scripts that read or rewrite them
(recompress.py, bench-zstd-tail.sh)."""
import struct

COMPRESSED = 81


def records(buf):
    """Yields (type, misc, bytes) of each whole record of `buf`, then
    (None, None, rest) for bytes after the last whole record, if any."""
    pos = 0
    while pos + 8 <= len(buf):
        rtype, misc, size = struct.unpack_from('<IHH', buf, pos)
        if size < 8 or pos + size > len(buf):
            break
        yield rtype, misc, buf[pos:pos + size]
        pos += size
    if pos != len(buf):
        yield None, None, buf[pos:]
