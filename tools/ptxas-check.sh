#!/usr/bin/env bash
# Assembles every PTX file of a kernel bundle with ptxas for sm_80 and sm_90
# (PTX for sm_90a only for sm_90a), prints registers / spills / shared memory
# per (kernel, arch), and fails on any ptxas error or spilled byte, except
# that --allow-spill N lets a kernel spill up to N bytes (status "small";
# the last line counts them, so that a test can pin the number).
# Usage: tools/ptxas-check.sh [--allow-spill N] BUNDLE_DIR [PTXAS]
set -uo pipefail
allow=0
if [ "${1:-}" = --allow-spill ]; then
  allow=${2:?bytes}
  shift 2
fi
dir=${1:?bundle dir}
ptxas=${2:-/usr/local/cuda/bin/ptxas}
status=0
n=0 nok=0 nsmall=0 nfail=0
printf "%-44s %-7s %5s %6s %6s\n" kernel arch regs spill status
for f in "$dir"/*.ptx; do
  case "$f" in
  *.sm_90a.ptx) archs="sm_90a" ;;
  *) archs="sm_80 sm_90" ;;
  esac
  for arch in $archs; do
    log=$("$ptxas" -arch="$arch" -v "$f" -o /dev/null 2>&1)
    rc=$?
    regs=$(grep -o 'Used [0-9]* registers' <<<"$log" | grep -o '[0-9]*' | head -1)
    spill=$(grep -o '[0-9]* bytes spill stores' <<<"$log" | grep -o '^[0-9]*' | head -1)
    ok=ok
    n=$((n + 1))
    if [ $rc -ne 0 ] || ! [ "${spill:-x}" -le "$allow" ] 2>/dev/null; then
      ok=FAIL
      status=1
      nfail=$((nfail + 1))
      echo "$log" >&2
    elif [ "$spill" != 0 ]; then
      ok=small
      nsmall=$((nsmall + 1))
    else
      nok=$((nok + 1))
    fi
    printf "%-44s %-7s %5s %6s %6s\n" "$(basename "$f" .ptx)" "$arch" "${regs:-?}" "${spill:-?}" "$ok"
  done
done
echo "kernels: $n, spill-free: $nok, small spills (<= $allow bytes): $nsmall, failed: $nfail"
exit $status
