#!/usr/bin/env bash
# kernel-diff.sh - which GPU kernels' machine code differs between two
# trees: the scope of the GPU verification a change needs.  nvcc only (no
# GPU, no cuobjdump): every kernels/*.cu and kernels/gemm/*.cu of each tree
# is compiled to an sm_90a cubin with the build's flags, and each kernel's
# code (.text) is compared byte for byte, with its attributes (.nv.info:
# registers, barriers, parameters), constant bank and static shared memory.
#
#   scripts/kernel-diff.sh OLD [NEW]
#
# OLD, NEW: a commit of this repository or a directory holding a tree
# (kernels/ and src/); NEW defaults to the working tree.  Prints, per
# source file, how many kernels are the same, differ, or are in one tree
# only, and names each that is not the same.  A kernel's name is its
# mangled symbol with the anonymous-namespace hash nvcc derives from the
# file's path taken out, so that one source in two directories compares.
# Environment: KDIFF_FILES, the sources to compare (paths inside the tree,
# space-separated; default every kernels/*.cu and kernels/gemm/*.cu of
# either tree); NVCC (nvcc, else /usr/local/cuda/bin/nvcc); KDIFF_JOBS
# (compiles at once, default the CPUs).  Needs python3 (the ELF reader).
# Exit status: 0 every kernel the same, 1 some differ or are in one tree
# only, 2 bad usage or a build failed.
set -uo pipefail
usage() { echo "usage: scripts/kernel-diff.sh OLD [NEW]  (commits or tree directories)" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
repo=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || nvcc=/usr/local/cuda/bin/nvcc
command -v "$nvcc" >/dev/null 2>&1 || { echo "kernel-diff.sh: no nvcc" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "kernel-diff.sh: no python3" >&2; exit 2; }
jobs=${KDIFF_JOBS:-$(nproc 2>/dev/null || echo 2)}
case $jobs in '' | *[!0-9]* | 0) echo "kernel-diff.sh: KDIFF_JOBS '$jobs' is not a count" >&2; exit 2 ;; esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# tree SIDE REF: the tree of REF (a directory, or a commit of this
# repository) in $tmp/SIDE
tree() {
	local side=$1 ref=$2
	if [ -d "$ref" ]; then
		[ -d "$ref/kernels" ] && [ -d "$ref/src" ] || {
			echo "kernel-diff.sh: $ref holds no kernels/ and src/" >&2
			return 1
		}
		ln -s "$(cd "$ref" && pwd)" "$tmp/$side"
	else
		git -C "$repo" rev-parse --verify -q "$ref^{commit}" >/dev/null || {
			echo "kernel-diff.sh: '$ref' is neither a directory nor a commit" >&2
			return 1
		}
		mkdir -p "$tmp/$side" && git -C "$repo" archive "$ref" kernels src | tar -x -C "$tmp/$side"
	fi
}
tree old "$1" || exit 2
tree new "${2:-$repo}" || exit 2

if [ -n "${KDIFF_FILES:-}" ]; then
	files=$KDIFF_FILES
else
	files=$(cd "$tmp/old" && ls kernels/*.cu kernels/gemm/*.cu 2>/dev/null)
	files="$files $(cd "$tmp/new" && ls kernels/*.cu kernels/gemm/*.cu 2>/dev/null)"
	files=$(printf '%s\n' $files | sort -u)
fi

# the build's flags (Makefile.am's NVCC_FLAGS), the sm_90a image only
compile() { # SIDE FILE
	local side=$1 f=$2 o
	o="$tmp/cubin/$side/${f//\//_}.cubin"
	[ -f "$tmp/$side/$f" ] || return 0
	"$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I"$tmp/$side/src" \
		-cubin "$tmp/$side/$f" -o "$o" >"$o.log" 2>&1 || {
		echo "kernel-diff.sh: $side $f does not build:" >&2
		tail -5 "$o.log" >&2
		return 1
	}
}
mkdir -p "$tmp/cubin/old" "$tmp/cubin/new"
fail=0
running=0
for f in $files; do
	for side in old new; do
		compile "$side" "$f" &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n || fail=1
			running=$((running - 1))
		fi
	done
done
while [ "$running" -gt 0 ]; do
	wait -n || fail=1
	running=$((running - 1))
done
[ $fail = 0 ] || exit 2

python3 - "$tmp/cubin" $files <<'EOF'
import hashlib, os, re, struct, sys

def kernels(path):
    """{normalised name: sha1 of its .text} of one cubin (ELF64, little endian)."""
    if not os.path.exists(path):
        return None
    b = open(path, 'rb').read()
    if b[:4] != b'\x7fELF' or b[4] != 2:
        sys.exit('kernel-diff.sh: %s is not an ELF64 cubin' % path)
    shoff = struct.unpack_from('<Q', b, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3A)
    hdr = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    names = hdr[shstrndx][4]
    sec = {}
    for h in hdr:
        name = b[names + h[0]:b.index(b'\0', names + h[0])].decode()
        # NOBITS (shared memory): its size; else its bytes
        sec[name] = b'%d' % h[5] if h[1] == 8 else b[h[4]:h[4] + h[5]]
    out = {}
    for name in sec:
        if not name.startswith('.text.'):
            continue
        fn = name[6:]
        # the code and its relocations, and the kernel's attributes (.nv.info: registers,
        # barriers, parameters), its constant bank and its static shared memory
        h = hashlib.sha1()
        for part in ('.text.', '.rela.text.', '.nv.info.', '.nv.constant0.', '.nv.shared.'):
            h.update(part.encode() + sec.get(part + fn, b'-'))
        out[re.sub(r'_GLOBAL__N__[0-9a-f]+_', '_GLOBAL__N__', fn)] = h.hexdigest()
    return out

root, files = sys.argv[1], sys.argv[2:]
status = 0
for f in files:
    cub = f.replace('/', '_') + '.cubin'
    old, new = kernels(os.path.join(root, 'old', cub)), kernels(os.path.join(root, 'new', cub))
    if old is None or new is None:
        print('%s: only in %s' % (f, 'NEW' if old is None else 'OLD'))
        status = 1
        continue
    same = sorted(k for k in old if k in new and old[k] == new[k])
    diff = sorted(k for k in old if k in new and old[k] != new[k])
    only_old, only_new = sorted(set(old) - set(new)), sorted(set(new) - set(old))
    print('%s: %d kernels the same, %d differ, %d only in OLD, %d only in NEW'
          % (f, len(same), len(diff), len(only_old), len(only_new)))
    for what, ks in (('differs', diff), ('only in OLD', only_old), ('only in NEW', only_new)):
        for k in ks:
            print('  %s: %s' % (what, k))
    if diff or only_old or only_new:
        status = 1
sys.exit(status)
EOF
