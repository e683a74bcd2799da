#!/usr/bin/env bash
# Checks a kernel bundle's register use and spills, per (kernel, arch), and
# fails on any ptxas error, spilled byte or "Potential Performance Loss" note
# (wgmma serialised, setmaxnreg ignored), except that --allow-spill N lets
# a kernel spill up to N bytes (status "small"; the last line counts them,
# so that a test can pin the number).
#
#   tools/scripts/ptxas_check.sh [--allow-spill N] BUNDLE_DIR [PTXAS]
#       assembles every PTX file of the bundle with ptxas -v for sm_80 and
#       sm_90 (PTX for sm_90a only for sm_90a);
#   tools/scripts/ptxas_check.sh [--allow-spill N] --report BUNDLE_DIR
#       reads BUNDLE_DIR/ptxas-report.txt, which attn-bundle --ptxas writes
#       from the ptxas -v runs that made the bundle's cubins (no ptxas run
#       here: these are the cubins the runtime loads).
set -uo pipefail
allow=0
report=0
while [ $# -gt 0 ]; do
  case "$1" in
  --allow-spill) allow=${2:?bytes}; shift 2 ;;
  --report) report=1; shift ;;
  *) break ;;
  esac
done
dir=${1:?bundle dir}
ptxas=${2:-/usr/local/cuda/bin/ptxas}
status=0
n=0 nok=0 nsmall=0 nfail=0

# One (kernel, arch) row: its status from the spill bytes ("" = ptxas
# failed or reported nothing).
row() { # kernel arch regs spill [performance-warnings]
  local ok=ok
  n=$((n + 1))
  if ! [ "${4:-x}" -le "$allow" ] 2>/dev/null || [ "${5:-0}" != 0 ]; then
    ok=FAIL
    status=1
    nfail=$((nfail + 1))
  elif [ "$4" != 0 ]; then
    ok=small
    nsmall=$((nsmall + 1))
  else
    nok=$((nok + 1))
  fi
  printf "%-44s %-7s %5s %6s %6s\n" "$1" "$2" "${3:-?}" "${4:-?}" "$ok"
}

printf "%-44s %-7s %5s %6s %6s\n" kernel arch regs spill status
if [ $report = 1 ]; then
  file="$dir/ptxas-report.txt"
  if ! [ -f "$file" ]; then
    echo "ptxas-check: no $file (the bundle was built without --ptxas)" >&2
    exit 1
  fi
  while read -r kernel arch regs stores loads perf; do
    case "$kernel" in '#'* | '') continue ;; esac
    spill=$stores
    [ "${loads:-0}" -gt "${spill:-0}" ] 2>/dev/null && spill=$loads
    row "$kernel" "$arch" "$regs" "$spill" "${perf:-0}"
  done <"$file"
else
  for f in "$dir"/*.ptx; do
    case "$f" in
    *.sm_90a.ptx) archs="sm_90a" ;;
    *) archs="sm_80 sm_90" ;;
    esac
    for arch in $archs; do
      log=$("$ptxas" -arch="$arch" -v "$f" -o /dev/null 2>&1)
      rc=$?
      regs=$(grep -o 'Used [0-9]* registers' <<<"$log" | grep -o '[0-9]*' | head -1)
      perf=$(grep -c 'Potential Performance Loss' <<<"$log")
      spill=$(grep -o '[0-9]* bytes spill stores' <<<"$log" | grep -o '^[0-9]*' | head -1)
      if [ $rc -ne 0 ]; then
        echo "$log" >&2
        spill=
      fi
      row "$(basename "$f" .ptx)" "$arch" "$regs" "$spill" "$perf"
    done
  done
fi
[ $n -gt 0 ] || { echo "ptxas-check: no kernels in $dir" >&2; status=1; }
echo "kernels: $n, spill-free: $nok, small spills (<= $allow bytes): $nsmall, failed: $nfail"
exit $status
