#!/usr/bin/env python3
"""Trim a CUDA shared library's fat binary to the cubins of some GPU architectures.

usage: fatbin-trim.py LIB                  lists (kind, arch): count, KiB of the .nv_fatbin entries
       fatbin-trim.py LIB OUT 90[,80...]   writes OUT with every other entry's payload zeroed

Headers stay, so offsets and the CUDA runtime's registration are untouched; zeroed payloads
compress to nothing. scripts/gpu-check.sh uses it to fit onnxruntime's CUDA provider (272 MB)
into a GPU machine's 64 MiB transfer: sm_90 only (H100/H200) is 49.6 MB with xz -9e. Seen on
an H200: onnxruntime created a CUDA session from the trimmed library and its outputs matched
the CPU provider's. A GPU whose architecture was trimmed away cannot use the result (its
kernels would be missing: no PTX is kept to JIT from).
"""
import collections, struct, subprocess, sys

FATBIN_MAGIC = 0xBA55ED50
CUBIN = 2

def fatbin_section(path):
    for line in subprocess.check_output(['readelf', '-SW', path]).decode().splitlines():
        if '.nv_fatbin' in line:
            p = line.split(); i = p.index('.nv_fatbin')
            return int(p[i + 3], 16), int(p[i + 4], 16)
    sys.exit(f'{path}: no .nv_fatbin section')

def entries(data, off, size):
    """(offset, kind, sm, header size, payload size) of every entry of every fatbin in the section."""
    pos, end = off, off + size
    while pos + 16 <= end:
        magic, _ver, hsz, fsz = struct.unpack_from('<IHHQ', data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8; continue
        e, fend = pos + hsz, pos + hsz + fsz
        while e < fend:
            kind, _u, ehs, esz = struct.unpack_from('<HHIQ', data, e)
            arch = struct.unpack_from('<I', data, e + 28)[0]
            yield e, kind, arch, ehs, esz
            e += ehs + esz
        pos = fend

def main():
    lib = sys.argv[1]
    data = bytearray(open(lib, 'rb').read())
    found = list(entries(data, *fatbin_section(lib)))
    if len(sys.argv) == 2:
        n, kib = collections.Counter(), collections.Counter()
        for _e, kind, arch, _h, size in found:
            n[(kind, arch)] += 1; kib[(kind, arch)] += size // 1024
        for k in sorted(n):
            print(f'kind {k[0]} ({"cubin" if k[0] == CUBIN else "ptx"}) sm_{k[1]}: {n[k]} entries, {kib[k]} KiB')
        return
    keep = {int(a) for a in sys.argv[3].split(',')}
    if not any(kind == CUBIN and arch in keep for _e, kind, arch, _h, _s in found):
        sys.exit(f'{lib} has no cubins for sm_{sorted(keep)}: nothing would run')
    zeroed = 0
    for e, kind, arch, ehs, size in found:
        if not (kind == CUBIN and arch in keep):
            data[e + ehs:e + ehs + size] = bytes(size); zeroed += size
    open(sys.argv[2], 'wb').write(data)
    print(f'kept sm_{sorted(keep)} cubins, zeroed {zeroed >> 20} MiB of {len(found)} entries', file=sys.stderr)

main()
