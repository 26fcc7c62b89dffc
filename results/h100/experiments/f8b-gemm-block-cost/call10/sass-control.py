#!/usr/bin/env python3
"""sass-control.py - the scheduling bits of the promotion's FFMA/FADD lines
in a `cuobjdump -sass` listing (plain or .xz), one line each:
address, instruction, stall cycles, the yield bit, and the operand-reuse
mask.

sm_90 instructions are 128 bits; cuobjdump prints the low 64-bit word
beside the instruction and the high word on the next line.  The control
field is bits 105-125 of the instruction, i.e. bits 41-61 of the high
word: stall count (4 bits), yield (1), write barrier (3), read barrier
(3), wait mask (6), reuse flags (4), in that order from bit 41.  The
layout is the one published for Volta and later by Jia et al.,
"Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking"
(2018); doc/gemm-kernels.md cites it.

  sass-control.py FILE [OPCODE-REGEX]   (default: FFMA|FADD with four or
                                         three register operands, no RZ)
At the end: how many such lines there are, how many carry the yield bit
0 and 1, and how many set a reuse flag."""
import lzma
import re
import sys

path = sys.argv[1]
want = re.compile(sys.argv[2] if len(sys.argv) > 2 else
                  r'^(FFMA R\d+, R\d+, R\d+(\.reuse)?, R\d+|FADD R\d+, R\d+(\.reuse)?, R\d+)$')
opener = lzma.open if path.endswith('.xz') else open
with opener(path, 'rt') as f:
    lines = f.read().split('\n')
ins = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s+/\* 0x([0-9a-f]{16}) \*/')
hiw = re.compile(r'^\s*/\* 0x([0-9a-f]{16}) \*/\s*$')
n = y0 = y1 = ru = 0
for i, line in enumerate(lines[:-1]):
    m = ins.search(line)
    h = hiw.match(lines[i + 1])
    if not m or not h:
        continue
    text = re.sub(r'^@!?U?P\w+\s+', '', m.group(2).strip())
    if not want.search(text):
        continue
    c = int(h.group(1), 16) >> 41
    stall, yld, reuse = c & 0xf, (c >> 4) & 1, (c >> 17) & 0xf
    n += 1
    y0 += yld == 0
    y1 += yld == 1
    ru += reuse != 0
    print(f'{m.group(1)} {text:<44} stall {stall:2d} yield-bit {yld} reuse {reuse:04b}')
print(f'# {n} lines: yield bit 0 on {y0}, 1 on {y1}; a reuse flag set on {ru}')
