#!/usr/bin/env python3
"""Runs the attn kernels under compute-sanitizer (memcheck with leak check,
racecheck, synccheck, initcheck) and fails on any finding.

The sanitized program is attn-sanitize-driver
(tools/attn-sanitize-driver/attn-sanitize-driver.cpp: no torch, no CUDA
runtime): every kernel family of the bundle (dtype x head dim x causal x
LSE/no-LSE in manifest.txt) over a few small shapes through the runtime's C
API, each result checked against float64 on the host, and optionally the
tile-IR programs of gpuprog/ launched from their PTX.

By default it sanitizes the kernels the runtime picks for this GPU (the
whole bundle). --chips all also runs a bundle cut down to each chip of the
manifest that this GPU can run (e.g. sm_80 PTX on an H100), so every PTX
file gets checked.

A run is clean iff compute-sanitizer printed its summary with 0 errors (0
hazards for racecheck), exited 0, and the driver's cases all matched the
reference. A run that times out is killed with the process it sanitizes
and tried once more (the verdict says so; a second time-out fails it):
compute-sanitizer has hung on kernels that ran clean before and after.
Beside them, small kernels with planted bugs (an out-of-bounds
write, a shared-memory race, an uninitialised read) must be reported by
memcheck, racecheck and initcheck: a sanitizer that reports nothing there
proves nothing elsewhere. Exit status: 0 clean and every planted bug
reported, 1 a finding, a failed run or a missed planted bug, 2 if
compute-sanitizer or the driver cannot be used.

  tools/scripts/sanitize_gpu.py --driver build-gpu/bin/attn-sanitize-driver \\
      --bundle bundle [--programs gpuprog] [--out-dir DIR]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import manifest

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
ERROR_EXIT = 86  # compute-sanitizer's exit code when it found something
# 1,136,1,130,64: 272 tiles of 128 query rows (136 of 192), more than an
# H100/H200 has SMs, so persistent kernels run several tiles a program
# (small tiles: racecheck stays within its time; 1,2,1,16900,300 did not).
DEFAULT_SHAPES = ("1,2,1,130,77;2,2,2,17,200,bnhd;1,4,1,257,513;1,1,1,1,1;"
                  "1,136,1,130,64")
# Planted bugs (attn-sanitize-driver --plant) and the tool that must report
# each.
PLANTED = {"memcheck": "oob", "racecheck": "race", "initcheck": "uninit"}

# Lines of a report that name one finding (the summary lines give counts).
FINDING = re.compile(
    r"^========= +(Invalid |Program hit|Leaked|Uninitialized|"
    r"(Error|Warning): Race|Race reported|Barrier|Malloc|Free|"
    r"Misaligned|Out-of-range|Unused|Potential|Error|Warning)")
SUMMARY = re.compile(r"^========= ERROR SUMMARY: (\d+) errors?")
RACE_SUMMARY = re.compile(
    r"^========= RACECHECK SUMMARY: (\d+) hazards? displayed "
    r"\((\d+) errors?, (\d+) warnings?\)")
LEAK_SUMMARY = re.compile(r"LEAK SUMMARY: (\d+) bytes leaked in (\d+) alloc")
DRIVER_SUMMARY = re.compile(
    r"^attn-sanitize-driver: (\d+) bundle cases \((\d+) kernels\): "
    r"(\d+) passed, (\d+) failed, (\d+) unsupported; "
    r"(\d+) program cases: (\d+) failed")


def find_sanitizer(given):
    for c in ([given] if given else []) + [
            shutil.which("compute-sanitizer") or "",
            "/usr/local/cuda/bin/compute-sanitizer",
            "/usr/local/cuda/compute-sanitizer/compute-sanitizer"]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


# The program variants attn-sanitize-driver has inputs and a reference for;
# the score_mod programs with captured tables (alibi, chunked, relbias,
# docmask) are checked by gpu_programs.py (under compute-sanitizer by hand:
# `compute-sanitizer python3 tools/scripts/gpu_programs.py DIR --quick
# --no-bench --only score-mod`).
DRIVER_VARIANTS = ("plain", "softcap", "bias")


def programs_spec(programs_dir, path):
    """gpuprog/programs.json -> the driver's one-line-per-program format
    (the variants it knows; the others are named and left out)."""
    progs = json.load(open(os.path.join(programs_dir, "programs.json")))
    skipped = [p["name"] for p in progs
               if p.get("variant", "plain") not in DRIVER_VARIANTS]
    if skipped:
        print(f"sanitize: programs the driver has no reference for, left "
              f"out: {', '.join(skipped)}", flush=True)
    progs = [p for p in progs if p.get("variant", "plain") in DRIVER_VARIANTS]
    with open(path, "w") as f:
        for p in progs:
            words = dict(
                name=p["name"],
                ptx=os.path.abspath(os.path.join(programs_dir, p["ptx"])),
                kernel=p["kernel"], dtype=p["dtype"],
                head_dim=p["head_dim"], causal=int(bool(p["causal"])),
                variant=p.get("variant", "plain"), block_m=p["block_m"],
                threads=p["threads"], smem=p["smem"],
                args=",".join(p["args"]))
            if p.get("tensor_maps"):
                # ARG:ROWS[:BYTES] (BYTES written where it is not 128).
                maps = [(list(m) + [128])[:3] for m in p["tensor_maps"]]
                words["tensor_maps"] = ",".join(
                    f"{a}:{r}" + ("" if b == 128 else f":{b}")
                    for a, r, b in maps)
            if p.get("persistent"):
                words["persistent"] = 1
            if p.get("tile_counter"):
                words["tile_counter"] = 1
            if p.get("softcap"):
                words["softcap"] = p["softcap"]
            if p.get("scale"):
                words["scale"] = p["scale"]
            f.write(" ".join(f"{k}={v}" for k, v in words.items()) + "\n")
    return len(progs)


def chip_bundles(bundle, workdir):
    """{chip: a bundle directory holding only that chip's kernels}."""
    by_chip = {}
    header = []
    for line, k in manifest.read(os.path.join(bundle, "manifest.txt")):
        if k is None:
            header.append(line)
        elif "chip" in k:
            by_chip.setdefault(k["chip"], []).append((line, k))
    out = {}
    for chip, lines in sorted(by_chip.items()):
        d = os.path.join(workdir, f"bundle-{chip}")
        shutil.rmtree(d, ignore_errors=True)  # links of an earlier bundle
        os.makedirs(d)
        with open(os.path.join(d, "manifest.txt"), "w") as f:
            f.writelines(header + [line for line, _ in lines])
        for _, k in lines:
            # The PTX and the line's cubins (sass=chip:file,...): on a GPU of
            # one of those chips the runtime runs the cubin, which is then
            # what the tools check; elsewhere the PTX through the JIT.
            files = [k["ptx"]] + list(manifest.sass_files(k).values())
            for name in files:
                dst = os.path.join(d, name)
                if not os.path.lexists(dst):
                    os.symlink(os.path.abspath(os.path.join(bundle, name)),
                               dst)
        out[chip] = d
    return out


def parse(tool, text, rc):
    """Counts of one sanitizer run's report."""
    r = dict(rc=rc, errors=None, hazards=None, race_errors=0,
             race_warnings=0, leaked_bytes=0, findings=[], driver=None)
    for line in text.splitlines():
        m = SUMMARY.match(line)
        if m:
            r["errors"] = int(m.group(1))
        m = RACE_SUMMARY.match(line)
        if m:
            r["hazards"] = int(m.group(1))
            r["race_errors"] = int(m.group(2))
            r["race_warnings"] = int(m.group(3))
        m = LEAK_SUMMARY.search(line)
        if m:
            r["leaked_bytes"] = int(m.group(1))
        m = DRIVER_SUMMARY.match(line)
        if m:
            g = [int(x) for x in m.groups()]
            r["driver"] = dict(cases=g[0], kernels=g[1], passed=g[2],
                               failed=g[3], unsupported=g[4],
                               program_cases=g[5], program_failed=g[6])
        if FINDING.match(line) and "SUMMARY" not in line:
            r["findings"].append(line[10:].strip())
    r["count"] = max(r["errors"] or 0, r["hazards"] or 0,
                     r["race_errors"] + r["race_warnings"],
                     len(r["findings"]), 1 if r["leaked_bytes"] else 0)
    d = r["driver"]
    if r["errors"] is None and r["hazards"] is None:
        r["verdict"] = "NO SUMMARY (did the tool run?)"
    elif r["count"]:
        r["verdict"] = "FINDINGS"
    elif d is None:
        r["verdict"] = "DRIVER DID NOT FINISH"
    elif d["failed"] or d["program_failed"]:
        r["verdict"] = "WRONG RESULTS"
    elif rc != 0:
        r["verdict"] = f"EXIT {rc}"
    else:
        r["verdict"] = "clean"
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--driver", required=True,
                    help="the built attn-sanitize-driver")
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--programs", help="gpuprog/ (programs.json + PTX)")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--chips", choices=("selected", "all"),
                    default="all",
                    help="selected: what the runtime picks for this GPU; "
                    "all: also each chip's PTX alone")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES,
                    help="B,Hq,Hkv,Nq,Nk[,bnhd];... (default %(default)s)")
    ap.add_argument("--racecheck-shapes",
                    help="shapes for racecheck, the slowest tool "
                    "(default: --shapes)")
    ap.add_argument("--jobs", type=int, default=4,
                    help="sanitizer runs at a time (they share the GPU)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds per sanitizer run")
    ap.add_argument("--sanitizer", help="compute-sanitizer binary")
    ap.add_argument("--no-self-test", action="store_true",
                    help="skip the planted-bug runs")
    ap.add_argument("--out-dir", default=".",
                    help="sanitize.log (every report) and sanitize.json")
    ap.add_argument("--work-dir", help="scratch (default: a temp dir)")
    a = ap.parse_args()

    t_start = time.time()
    tools = [t for t in a.tools.split(",") if t]
    bad = [t for t in tools if t not in TOOLS]
    if bad:
        sys.exit(f"sanitize: unknown tool(s) {bad}; known: {TOOLS}")
    san = find_sanitizer(a.sanitizer)
    if not san:
        print("sanitize: compute-sanitizer not found (PATH, /usr/local/cuda/"
              "bin): cannot check", flush=True)
        return 2
    ver = subprocess.run([san, "--version"], capture_output=True,
                         text=True).stdout.strip().splitlines()
    helptext = subprocess.run([san, "--help"], capture_output=True,
                              text=True).stdout
    print(f"sanitize: {san} ({ver[-1] if ver else '?'})", flush=True)

    os.makedirs(a.out_dir, exist_ok=True)
    work = a.work_dir or tempfile.mkdtemp(prefix="attn-sanitize-")
    os.makedirs(work, exist_ok=True)
    spec = None
    nprog = 0
    if a.programs and os.path.isfile(os.path.join(a.programs,
                                                  "programs.json")):
        spec = os.path.join(work, "programs.txt")
        nprog = programs_spec(a.programs, spec)

    # Bundles: the whole one (the runtime picks each family's chip), or
    # each chip's kernels alone (those this GPU cannot run are skipped).
    bundles = [("selected", os.path.abspath(a.bundle))]
    if a.chips == "all":
        bundles = list(chip_bundles(a.bundle, work).items())

    # Runs: one per bundle, and one for the gpuprog/ programs.
    runs = [(name, ["--bundle", d]) for name, d in bundles]
    if spec:
        runs.append(("programs", ["--programs", spec]))

    # A plain run of each first: the driver must pass without the sanitizer
    # (else a sanitizer verdict means little), and it tells which chip
    # bundles this GPU can run at all. These runs also fill the driver's JIT
    # cache, so the sanitized runs spend their time on the kernels.
    log = open(os.path.join(a.out_dir, "sanitize.log"), "w")

    def plain(run):
        name, args = run
        cmd = [a.driver] + args + ["--shapes", a.shapes]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=a.timeout)
        return name, args, cmd, p, time.time() - t0

    runnable = []
    baseline = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        plain_runs = list(ex.map(plain, runs))
    for name, args, cmd, p, dt in plain_runs:
        log.write(f"### plain run, {name} ({dt:.1f} s, exit "
                  f"{p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}\n")
        tail = (p.stdout.strip().splitlines() or [""])[-1]
        print(f"sanitize: plain run, {name}: exit {p.returncode}, "
              f"{dt:.1f} s: {tail}", flush=True)
        if p.returncode == 3 and a.chips == "all":
            print(f"sanitize: this GPU runs no {name} kernel: skipped",
                  flush=True)
            continue
        baseline[name] = p.returncode
        if p.returncode != 0:
            for line in (p.stdout + p.stderr).splitlines():
                if not line.startswith("ok "):
                    print("  " + line)
        runnable.append((name, args))
    if any(rc == 2 for rc in baseline.values()):
        print("sanitize: the driver cannot run here (see above)", flush=True)
        log.close()
        return 2

    def common(tool):
        opts = ["--tool", tool, "--error-exitcode", str(ERROR_EXIT),
                "--print-limit", "100"]
        if tool == "memcheck":
            opts += ["--leak-check", "full"]
            if "--padding" in helptext:
                opts += ["--padding", "256"]
        return opts

    jobs = []
    for tool in tools:
        for name, args in runnable:
            shapes = a.racecheck_shapes if tool == "racecheck" and \
                a.racecheck_shapes else a.shapes
            cmd = [san] + common(tool) + [a.driver] + args + \
                ["--shapes", shapes]
            if tool == "initcheck":
                cmd.append("--no-poison")
            jobs.append((tool, name, cmd))
    if not a.no_self_test:
        for tool in tools:
            if tool in PLANTED:
                jobs.append((tool, "planted-" + PLANTED[tool],
                             [san] + common(tool) +
                             [a.driver, "--plant", PLANTED[tool]]))

    def attempt(cmd):
        # In a session of its own, so that a time-out kills the sanitizer
        # and the process it runs on the GPU (killing compute-sanitizer
        # alone leaves the target running, and it slows every later run).
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=a.timeout)
            return out, p.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = p.communicate()
            return (out or "") + \
                f"\nsanitize: timed out after {a.timeout} s\n", 124

    def run(job):
        tool, name, cmd = job
        t0 = time.time()
        out, rc = attempt(cmd)
        logged, retried = out, False
        if rc == 124 and not name.startswith("planted-"):
            # compute-sanitizer has hung on kernels that ran clean in
            # 13-41 s before and after (racecheck, H200, 2026-11-26: the
            # previous and the current bundle alike). One more try, said in
            # the verdict; a second time-out fails the run.
            out, rc = attempt(cmd)
            logged += "\nsanitize: timed out once; the retry:\n" + out
            retried = True
        return tool, name, cmd, out, logged, retried, rc, time.time() - t0

    print(f"sanitize: {len(jobs)} runs ({', '.join(tools)} x "
          f"{', '.join(n for n, _ in runnable)}), {a.jobs} at a time; "
          f"shapes {a.shapes}"
          + (f"; racecheck shapes {a.racecheck_shapes}"
             if a.racecheck_shapes and "racecheck" in tools else "")
          + (f"; {nprog} programs of {a.programs}" if spec else ""),
          flush=True)
    results = []
    t_all = time.time()
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        futures = {ex.submit(run, job): i for i, job in enumerate(jobs)}
        for fut in concurrent.futures.as_completed(futures):
            tool, name, cmd, out, logged, retried, rc, dt = fut.result()
            r = parse(tool, out, rc)
            if retried:
                r["verdict"] = (f"TIMED OUT twice ({a.timeout:.0f} s each)"
                                if rc == 124 else
                                r["verdict"] + " (the retry after a time-out)")
            if name.startswith("planted-"):
                r["verdict"] = ("caught (expected)" if r["count"] else
                                "MISSED: the tool reported nothing")
            r.update(tool=tool, bundle=name, seconds=round(dt, 1),
                     command=" ".join(cmd), order=futures[fut])
            results.append(r)
            log.write(f"### {tool}, bundle {name} ({dt:.1f} s, exit {rc}, "
                      f"{r['verdict']}): {' '.join(cmd)}\n{logged}\n")
            log.flush()
            print(f"sanitize: {tool:9s} {name:14s} {dt:6.1f} s  "
                  f"{r['verdict']}", flush=True)
    results.sort(key=lambda r: r.pop("order"))
    wall = time.time() - t_all

    print()
    hdr = (f"{'tool':10s} {'run':14s} {'cases':>5s} {'kernels':>7s} "
           f"{'progs':>5s} {'findings':>8s} {'seconds':>7s}  result")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        d = r["driver"] or {}
        print(f"{r['tool']:10s} {r['bundle']:14s} {d.get('cases', '-'):>5} "
              f"{d.get('kernels', '-'):>7} {d.get('program_cases', '-'):>5} "
              f"{r['count']:>8} {r['seconds']:>7.1f}  {r['verdict']}")
        shown = 2 if r["bundle"].startswith("planted-") else 5
        for f in r["findings"][:shown]:
            print(f"    {f}")
        if len(r["findings"]) > shown:
            print(f"    ... {len(r['findings']) - shown} more (sanitize.log)")
    real = [r for r in results if not r["bundle"].startswith("planted-")]
    planted = [r for r in results if r["bundle"].startswith("planted-")]
    caught = sum(1 for r in planted if r["count"])
    clean = all(r["verdict"].startswith("clean") for r in real) and \
        all(rc == 0 for rc in baseline.values()) and bool(real) and \
        caught == len(planted)
    total = sum(r["count"] for r in real)
    kernels = sum(max([(r["driver"] or {}).get("kernels", 0) for r in real
                       if r["bundle"] == name] or [0])
                  for name, _ in runnable)
    bundle_names = [n for n, _ in runnable if n != "programs"]
    per_tool = ", ".join(
        f"{t} {sum(r['count'] for r in real if r['tool'] == t)}"
        for t in tools)
    summary = (f"{'clean' if clean else 'FAILED'}: {total} findings "
               f"({per_tool})"
               + (f"; planted bugs reported {caught}/{len(planted)}"
                  if planted else "")
               + f"; {kernels} kernels of {len(bundle_names)} bundle(s) "
               f"({', '.join(bundle_names)})"
               + (f" + {nprog} programs" if spec else "")
               + f"; {time.time() - t_start:.0f} s (sanitized runs "
               f"{wall:.0f} s)")
    print(f"\nsanitize: {summary}", flush=True)
    json.dump(dict(sanitizer=san, version=ver[-1] if ver else None,
                   clean=clean, summary=summary, wall_seconds=round(wall, 1),
                   shapes=a.shapes, baseline=baseline, runs=results),
              open(os.path.join(a.out_dir, "sanitize.json"), "w"), indent=1)
    log.close()
    if not a.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
