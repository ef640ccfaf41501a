#!/usr/bin/env python3
"""zstd-check.py RECORDING [--json] [--plain OUT] [--cut BYTES OUT]: a
recording's zstd streams read by an independent decoder (python-zstandard,
libzstd's streaming API), without compile-perf's reader or perf's.

RECORDING is a perf.data file, a `perf record --threads` directory, or a run
directory holding one. For each stream it prints the COMPRESSED records (type
81), the bytes they decompress to, the records inside by type, the samples,
and the COMPRESSED records that complete no output on their own: perf 6.1
stops at the first of those ("Couldn't decompress data … failed to process
type: 81"), although the stream goes on whole, because perf's writer cuts its
compressed output into records of at most 64 KiB wherever it falls.

--plain OUT writes a copy with each COMPRESSED record replaced by the records
it holds: perf report reads that copy whole. --cut BYTES OUT writes a copy
whose compressed streams are cut into records of BYTES (the same zstd stream,
cut elsewhere), as perf's writer may cut it. Needs the `zstandard` package
(scripts/setup.sh installs it into .venv).
"""
import argparse, json, os, shutil, struct, sys

import zstandard

from perf_stream import COMPRESSED, records

SAMPLE = 9
HEADER_DATA_SIZE_AT = 48  # perf_file_header: magic, size, attr_size, attrs, data.offset
FEATURE_BITS = 256


class Stream:
    """One stream's bytes of records: a whole data.N file, or the data
    section of a perf.data file."""

    def __init__(self, name, data):
        self.name = name
        self.data = data

    def read(self):
        """Walks the stream: returns a summary and, in order, each top-level
        record with what a COMPRESSED one decompressed to (None otherwise)."""
        decompressor = zstandard.ZstdDecompressor().decompressobj()
        summary = {
            'stream': self.name,
            'compressed_records': 0,
            'decompressed_bytes': 0,
            'records_by_type': {},
            'samples': 0,
            'records_completing_nothing': [],
            'trailing_bytes': 0,
        }
        walked = []
        offset = 0
        for kind, misc, record in records(self.data):
            if kind is None:
                summary['trailing_bytes'] = len(record)
                break
            plain = None
            if kind == COMPRESSED:
                plain = decompressor.decompress(bytes(record[8:]))
                summary['compressed_records'] += 1
                summary['decompressed_bytes'] += len(plain)
                if not plain:
                    summary['records_completing_nothing'].append(offset)
                count_records(summary, plain)
            else:
                count_types(summary, kind)
            walked.append((kind, misc, record, plain))
            offset += len(record)
        return summary, walked


def count_types(summary, kind):
    by_type = summary['records_by_type']
    by_type[str(kind)] = by_type.get(str(kind), 0) + 1
    if kind == SAMPLE:
        summary['samples'] += 1


def count_records(summary, plain):
    """Counts the records of decompressed bytes, carrying a record cut at
    the end over to the next COMPRESSED record's bytes."""
    carried = summary.pop('_carried', b'') + plain
    rest = b''
    for kind, _, record in records(carried):
        if kind is None:
            rest = record
            break
        count_types(summary, kind)
    summary['_carried'] = rest


def finish(summary):
    rest = summary.pop('_carried', b'')
    summary['undecoded_tail_bytes'] = len(rest)
    return summary


def file_streams(path):
    """The streams of RECORDING, with how to write a copy of each."""
    if os.path.isdir(path) and os.path.isdir(os.path.join(path, 'perf.data')):
        path = os.path.join(path, 'perf.data')
    if os.path.isdir(path):
        return [('dir', path, name) for name in sorted(os.listdir(path))]
    return [('file', path, None)]


def header_sections(buf):
    data_offset, data_size = struct.unpack_from('<QQ', buf, 40)
    features = int.from_bytes(buf[72:72 + FEATURE_BITS // 8], 'little')
    return data_offset, data_size, bin(features).count('1')


def rewrite_file(buf, new_data):
    """A perf.data file with its data section replaced: the feature sections
    after it move, and their offsets with them."""
    data_offset, data_size, feature_count = header_sections(buf)
    delta = len(new_data) - data_size
    table_at = data_offset + data_size
    out = bytearray(buf[:data_offset]) + new_data + buf[table_at:]
    struct.pack_into('<Q', out, HEADER_DATA_SIZE_AT, len(new_data))
    for index in range(feature_count):
        at = data_offset + len(new_data) + 16 * index
        offset, size = struct.unpack_from('<QQ', out, at)
        struct.pack_into('<QQ', out, at, offset + delta, size)
    return bytes(out)


def plain_copy(walked):
    out = bytearray()
    for kind, misc, record, plain in walked:
        out += plain if kind == COMPRESSED else record
    return bytes(out)


def cut_copy(walked, cut):
    out = bytearray()
    pending = bytearray()

    def flush_pending():
        for at in range(0, len(pending), cut):
            part = pending[at:at + cut]
            out.extend(struct.pack('<IHH', COMPRESSED, 0, 8 + len(part)) + part)
        pending.clear()

    for kind, misc, record, _ in walked:
        if kind == COMPRESSED:
            pending.extend(record[8:])
        else:
            flush_pending()
            out.extend(record)
    flush_pending()
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('recording')
    parser.add_argument('--json', action='store_true', help='print JSON')
    parser.add_argument('--plain', metavar='OUT', help='write a decompressed copy')
    parser.add_argument('--cut', nargs=2, metavar=('BYTES', 'OUT'),
                        help='write a copy with the compressed streams cut into records of BYTES')
    args = parser.parse_args()

    summaries = []
    copies = {'plain': (args.plain, plain_copy)}
    if args.cut:
        cut = int(args.cut[0])
        if not 1 <= cut <= 0xffff - 8:
            parser.error('BYTES must be 1 to 65527')
        copies['cut'] = (args.cut[1], lambda walked: cut_copy(walked, cut))
    for layout, path, name in file_streams(args.recording):
        source = os.path.join(path, name) if name else path
        buf = open(source, 'rb').read()
        if layout == 'file' or name == 'data':
            if buf[:8] != b'PERFILE2':
                sys.exit(f'{source}: not a perf.data file (no PERFILE2 magic)')
            data_offset, data_size, _ = header_sections(buf)
            stream = Stream(name or os.path.basename(path), buf[data_offset:data_offset + data_size])
        elif name.startswith('data.'):
            stream = Stream(name, buf)
        else:
            stream = None
        walked = []
        if stream is not None:
            summary, walked = stream.read()
            summaries.append(finish(summary))
        for out, make in copies.values():
            if not out:
                continue
            target = os.path.join(out, name) if layout == 'dir' else out
            if layout == 'dir':
                os.makedirs(out, exist_ok=True)
            if stream is None:
                shutil.copy(source, target)
                continue
            new_data = make(walked)
            if layout == 'file' or name == 'data':
                new_data = rewrite_file(buf, new_data)
            with open(target, 'wb') as file:
                file.write(new_data)

    total = {
        'streams': summaries,
        'samples': sum(s['samples'] for s in summaries),
        'records_completing_nothing': sum(len(s['records_completing_nothing']) for s in summaries),
    }
    if args.json:
        json.dump(total, sys.stdout, indent=1)
        print()
        return
    for s in summaries:
        stops = ', '.join(hex(offset) for offset in s['records_completing_nothing'][:5]) or 'none'
        print(f"{s['stream']}: {s['compressed_records']} COMPRESSED records → "
              f"{s['decompressed_bytes']} bytes; {s['samples']} samples; "
              f"records that complete nothing alone (perf 6.1 stops there): {stops}")
    print(f"total: {total['samples']} samples")


if __name__ == '__main__':
    main()
