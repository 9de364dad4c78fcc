#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-readme.py - README.md's benchmark blocks, generated: never a hand-copied figure.
#
# usage: bench-readme.py [--json DIR] (--update | --check) [README.md]
#   --json DIR  the figures of a make bench run (DIR/bench.json, DIR/analyzer.json, normally
#               build/bench); without it, the instruction counts and the crashwalk/gdb
#               times the README already shows, so every figure derived from them is
#               recomputed from what the reader sees
#   --update    rewrite each block between its <!-- bench:NAME --> and <!-- /bench:NAME -->
#   --check     exit 1, with a diff, when a block is not what its figures give (docs suite)
# Every ratio and difference is computed from the rounded figures printed beside it, so a
# reader who redoes the arithmetic gets the same result.
import difflib
import json
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def insn_table(kernels, insn):
    """The executed-instructions table: per kernel the count and its /function, /stack ratios."""
    out = ["executed instructions per call (qemu -icount shift=0):",
           "%-30s" % "setup" + "".join(" %12s %8s %8s" % (k + " insn", "/func", "/stack")
                                      for k in kernels)]
    for setup in insn[kernels[0]]:
        row = "%-30s" % setup
        for k in kernels:
            v = insn[k][setup]
            row += " %12d %8s %8s" % (v, ratio(v, insn[k]["function"]),
                                      ratio(v, insn[k]["function_stack_trace"]))
        out.append(row)
    return out


LAYERS = [
    ("ftrace's dispatch to a module's ops (`nop_ops` − `untraced`)",
     lambda i: i["nop_ops"] - i["untraced"]),
    ("what the function tracer would pay for that dispatch (`function_instance` − `function`)",
     lambda i: i["function_instance"] - i["function"]),
    ("ring buffer reserve + commit of one word (`probe_ring_buffer` − `nop_ops`)",
     lambda i: i["probe_ring_buffer"] - i["nop_ops"]),
    ("the trace event's layers above it: tracepoint, `trace_event_buffer_reserve`, commit "
     "(`probe_trace_event` − `probe_ring_buffer`)",
     lambda i: i["probe_trace_event"] - i["probe_ring_buffer"]),
    ("framewalk's fixed cost with the event off: recursion lock, ops check, counter "
     "(`d0_events_off` − `nop_ops`)",
     lambda i: i["framewalk_d0_events_off"] - i["nop_ops"]),
    ("framewalk's event with no ancestor beyond the event itself (`d0_events_on` − "
     "`probe_trace_event`)",
     lambda i: i["framewalk_d0_events_on"] - i["probe_trace_event"]),
    ("each ancestor (`(d16 − d0) / 16`, event on)",
     lambda i: "%.1f" % ((i["framewalk_d16_events_on"] - i["framewalk_d0_events_on"]) / 16)),
]


def layer_table(kernels, insn):
    out = ["| instructions per call | " + " | ".join(kernels) + " |",
           "|---" * (len(kernels) + 1) + "|"]
    for what, f in LAYERS:
        out.append("| %s | %s |" % (what, " | ".join(str(f(insn[k])) for k in kernels)))
    return out


AGGREGATE_ROWS = ["nop_ops", "function", "function_instance", "framewalk_d16_events_on",
                  "framewalk_d0_aggregate", "framewalk_d16_aggregate", "framewalk_d32_aggregate"]


def aggregate_table(kernels, insn):
    out = ["%-28s" % "setup" + "".join(" %8s %6s" % (k, "/func") for k in kernels)]
    for setup in AGGREGATE_ROWS:
        out.append("%-28s" % setup + "".join(
            " %8d %6s" % (insn[k][setup], ratio(insn[k][setup], insn[k]["function"]))
            for k in kernels))
    return out


def analyzer_block(a):
    """bench-analyzer.sh's table, its ratios from the milliseconds it prints."""
    c, b = a["corpus"], a["large_firmware"]
    rows = [("corpus, %d dumps, cold" % c["dumps"], c["crashwalk_cold"], c["gdb_cold"]),
            ("corpus, %d dumps, batch per firmware" % c["dumps"], c["crashwalk_batch"],
             c["gdb_batch"]),
            ("%d symbols, %d B code, cold" % (b["symbols"], b["code_bytes"]), b["crashwalk_cold"],
             b["gdb_cold"]),
            ("same, batch of %d dumps" % b["batch"], b["crashwalk_batch"], b["gdb_batch"]),
            ("same, batch of %d dumps" % b["batch_long"], b["crashwalk_batch_long"],
             b["gdb_batch_long"])]
    out = ["crashwalk against gdb-multiarch on the same ELF cores (ms per dump; lower is better)",
           "%-44s %10s %10s %8s" % ("input", "crashwalk", "gdb", "gdb/cw")]
    for name, cw, gdb in rows:
        out.append("%-44s %10.2f %10.2f %8s" % (name, cw, gdb, "%.1fx" % (gdb / cw)))
    r = b["gdb_batch_long"] / b["crashwalk_batch_long"]
    out += ["batch throughput: crashwalk %.0f dumps/s on the large firmware, %.0f on the corpus"
            % (1000 / b["crashwalk_batch_long"], 1000 / c["crashwalk_batch"]),
            "peak RSS on the large firmware: crashwalk %d KB, gdb %d KB"
            % (b["crashwalk_peak_rss_kb"], b["gdb_peak_rss_kb"]),
            "eu-stack: " + a["eu_stack"],
            "target (issue: >= 100x faster than gdb per dump in batch mode): %.1fx on the large "
            "firmware in a batch of %d, %s" % (r, b["batch_long"], "met" if r >= 100 else "not met")]
    return out


def block(text, name):
    m = re.search(r"<!-- bench:%s -->\n(.*?)<!-- /bench:%s -->\n" % (name, name), text, re.S)
    if not m:
        sys.exit("bench-readme: no <!-- bench:%s --> block in the README" % name)
    return m


def unfence(lines):
    return [l for l in lines if not l.startswith("```")]


def figures_from_readme(text):
    """The counts and times the README shows: the data every other figure derives from."""
    lines = unfence(block(text, "instructions").group(1).splitlines())
    kernels = re.findall(r"(\S+) insn", lines[1])
    insn = {k: {} for k in kernels}
    for line in lines[2:]:
        f = line.split()
        for i, k in enumerate(kernels):
            insn[k][f[0]] = int(f[1 + 3 * i])
    lines = unfence(block(text, "analyzer").group(1).splitlines())
    ms = [re.match(r"(.*?)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+x$", l) for l in lines[2:7]]
    num = [int(x) for x in re.findall(r"\d+", ms[0].group(1) + " " + ms[2].group(1) + " " +
                                      ms[3].group(1) + " " + ms[4].group(1))]
    rss = re.search(r"crashwalk (\d+) KB, gdb (\d+) KB", "\n".join(lines))
    eu = re.search(r"^eu-stack: (.*)$", "\n".join(lines), re.M)
    t = [(float(m.group(2)), float(m.group(3))) for m in ms]
    a = {"corpus": {"dumps": num[0], "crashwalk_cold": t[0][0], "gdb_cold": t[0][1],
                    "crashwalk_batch": t[1][0], "gdb_batch": t[1][1]},
         "large_firmware": {"symbols": num[1], "code_bytes": num[2], "batch": num[3],
                            "batch_long": num[4], "crashwalk_cold": t[2][0], "gdb_cold": t[2][1],
                            "crashwalk_batch": t[3][0], "gdb_batch": t[3][1],
                            "crashwalk_batch_long": t[4][0], "gdb_batch_long": t[4][1],
                            "crashwalk_peak_rss_kb": int(rss.group(1)),
                            "gdb_peak_rss_kb": int(rss.group(2))},
         "eu_stack": eu.group(1)}
    return kernels, insn, a


def figures_from_json(d):
    with open(os.path.join(d, "bench.json")) as f:
        b = json.load(f)
    kernels = list(b["kernels"])
    insn = {k: {s: int(round(v)) for s, v in b["kernels"][k]["instructions"].items()}
            for k in kernels}
    with open(os.path.join(d, "analyzer.json")) as f:
        a = json.load(f)
    return kernels, insn, a


def main(argv):
    args, json_dir, mode = list(argv), None, None
    if "--json" in args:
        i = args.index("--json")
        json_dir = args[i + 1]
        del args[i:i + 2]
    for m in ("--update", "--check"):
        if m in args:
            mode = m
            args.remove(m)
    if not mode or len(args) > 1:
        sys.exit("usage: bench-readme.py [--json DIR] (--update | --check) [README.md]")
    path = args[0] if args else os.path.join(TOP, "README.md")
    with open(path) as f:
        text = f.read()
    kernels, insn, a = figures_from_json(json_dir) if json_dir else figures_from_readme(text)
    fence = ["```"]
    new = text
    for name, lines in (("instructions", fence + insn_table(kernels, insn) + fence),
                        ("layers", layer_table(kernels, insn)),
                        ("aggregate", fence + aggregate_table(kernels, insn) + fence),
                        ("analyzer", fence + analyzer_block(a) + fence)):
        m = block(new, name)
        new = new[:m.start(1)] + "\n".join(lines) + "\n" + new[m.end(1):]
    if new == text:
        return 0
    if mode == "--update":
        with open(path, "w") as f:
            f.write(new)
        print("bench-readme: rewrote the benchmark blocks of " + path)
        return 0
    sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                               path, path + " (generated)"))
    print("bench-readme: %s: a benchmark block is not what its figures give; "
          "scripts/bench-readme.py --update %s" % (path, path))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
