#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-readme.py - make bench's tables, from the guests' lines to README.md's blocks.
#
# usage: bench-readme.py --report DIR KERNEL...
#        bench-readme.py [--json DIR] (--update | --check) [README.md]
#   --report DIR  DIR/bench.json from the lines scripts/bench.sh kept in DIR/raw-KERNEL.txt,
#                 and the tables on stdout (bench.sh tees them into DIR/bench.txt)
#   --json DIR    the figures of a make bench run (DIR/bench.json, DIR/analyzer.json, normally
#                 build/bench); --update keeps a copy in bench/results/, and without --json
#                 both modes read that copy: the run the README shows
#   --update      rewrite each block between its <!-- bench:NAME --> and <!-- /bench:NAME -->
#   --check       exit 1, with a diff, when a block is not what the figures give, or when
#                 README.md or the framewalk documentation quotes a measured figure outside
#                 the blocks (docs suite): a hand-copied figure goes stale with the next run
# Every ratio and difference is computed from the rounded figures printed beside it, so a
# reader who redoes the arithmetic gets the same result.
import difflib
import json
import os
import re
import shutil
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RESULTS = os.path.join(TOP, "bench", "results")
# Prose that may quote no measured figure: the framewalk pages. crashwalk.rst's figures
# are its own suites' (the compare runs), not make bench's.
PROSE = ["README.md", "Documentation/framewalk.rst", "Documentation/framewalk-cli.rst"]
# A ratio with decimals (1.92x, 0.25×) or a count of instructions a call or a hit:
# what make bench measures. A count "a record" or "a word" is the code's, read off the
# assembly, and stays.
MEASURED = re.compile(r"\b\d+\.\d+\s?[×x](?![0-9a-zA-Z_])|\b\d[\d ,]*\d?\s+instructions"
                      r"(?!\s+(?:a|per)\s+(?:record|word))\b")

def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


# From the guests' lines to bench.json.

def parse_raw(path):
    """One kernel's lines: "I ..." from the -icount boot, "T ..." from the TCG one, "C ..."
    from the host (the kernel's config, the module's BTF, the boots' wall times)."""
    k = {"instructions": {}, "spread": {}, "ns": {}, "not_measured": {}, "counted": {},
         "stuck": {}, "stacks": {}, "kfunc_vmlinux": None, "aggregate": [], "config": {},
         "module_btf": False, "wall_seconds": {}, "sustained": {}, "drop_free_per_s": 0,
         "user_frames": {}, "latency": {}}
    order = []
    with open(path) as f:
        for line in f:
            boot, tag, rest = (line.rstrip("\n").split(" ", 2) + ["", ""])[:3]
            if tag == "BENCH":
                name, med, lo, hi = rest.split()
                if name not in order:
                    order.append(name)
                if boot == "I":
                    k["instructions"][name] = int(int(med) / 1000 + 0.5)
                    k["spread"][name] = [int(int(lo) / 1000 + 0.5), int(int(hi) / 1000 + 0.5)]
                else:
                    k["ns"][name] = int(med) / 1000
            elif tag == "NA":
                name, why = rest.split(" ", 1)
                if name not in order:
                    order.append(name)
                k["not_measured"].setdefault(name, why)
            elif tag == "BPFCOUNT" and boot == "I":
                name, counted, calls = rest.split()
                k["counted"][name] = [int(counted), int(calls)]
            elif tag == "BPFSTUCK":
                name, why = rest.split(" ", 1)
                k["stuck"][name] = why
            elif tag == "BPFSTACK":
                probe, frame = rest.split(" ", 1)
                k["stacks"].setdefault(probe, []).append(frame)
            elif tag == "BPFKFUNC":
                k["kfunc_vmlinux"] = rest.split(" ", 1)[1]
            elif tag == "AGGREGATE" and boot == "I":
                k["aggregate"].append({a: int(b) for a, b in
                                       (kv.split("=") for kv in rest.split())})
            elif tag == "LATENCY" and boot == "I":
                k["latency"] = {a: int(b) for a, b in (kv.split("=") for kv in rest.split())}
            elif tag == "USERFRAMES" and boot == "I":
                # user=0 writes chain, which has no nr_user: no frames.
                kv = dict(a.split("=") for a in rest.split())
                k["user_frames"][kv["user"]] = int(kv["frames"] or 0)
            elif tag == "SUSTAIN":
                k["sustained"] = {a: int(b) for a, b in (kv.split("=") for kv in rest.split())}
            elif tag == "DROPFREE":
                k["drop_free_per_s"] = int(rest.split()[0].split("=")[1])
            elif tag == "CONFIG":
                key, _, value = rest.partition("=")
                k["config"][key] = value
            elif tag == "MODBTF":
                k["module_btf"] = rest == "yes"
                k["module_btf_why"] = rest.partition(": ")[2]
            elif tag == "WALL":
                what, secs = rest.split()
                k["wall_seconds"][what] = int(secs)
    return k, order


def report_json(d, kernels):
    bench = {"machine": {}, "unit": "instructions per call (qemu -icount shift=0); "
             "TCG ns per call under \"ns\"", "setups": [], "kernels": {}}
    for k in kernels:
        bench["kernels"][k], order = parse_raw(os.path.join(d, "raw-%s.txt" % k))
        bench["setups"] += [s for s in order if s not in bench["setups"]]
    with open("/proc/cpuinfo") as f:
        cpu = re.search(r"model name\s*:\s*(.*)", f.read())
    bench["machine"]["cpu"] = cpu.group(1) if cpu else "unknown"
    bench["machine"]["guest"] = os.popen("qemu-system-aarch64 --version").readline().strip() + \
        ", -cpu max, TCG"
    with open(os.path.join(d, "bench.json"), "w") as f:
        json.dump(bench, f, indent=1)
        f.write("\n")
    return bench


# What each figure means, for tables and prose alike.

def hook(k):
    c = k["config"]
    if c.get("CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS") == "y":
        return "patchable entry, an ops per call site"
    if c.get("CONFIG_DYNAMIC_FTRACE_WITH_ARGS") == "y":
        return "patchable entry, ftrace_regs"
    if c.get("CONFIG_DYNAMIC_FTRACE_WITH_REGS") == "y":
        return "patchable entry, pt_regs"
    return "-pg, `_mcount`"


def why_short(k, setup):
    """A table cell's reason for a setup that did not run."""
    c = k["config"]
    if c.get("CONFIG_BPF_SYSCALL") != "y":
        return "no BPF"
    if "kfunc" in setup:
        why = []
        if c.get("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS") != "y":
            why.append("no BPF trampoline")
        if not k["module_btf"]:
            why.append("no module BTF")
        if why:
            return ", ".join(why)
    return k["not_measured"][setup]


def why_long(k, setup):
    """The whole reason: what the kernel lacks and what bpftrace said."""
    c, said = k["config"], k["not_measured"][setup]
    said = re.sub(r"^bpftrace: ", "", said).rstrip(".")
    if c.get("CONFIG_BPF_SYSCALL") != "y":
        return "the kernel has no BPF (`CONFIG_BPF_SYSCALL` is off)"
    why = []
    if "kfunc" in setup and c.get("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS") != "y":
        why.append("`CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS` is off, so no BPF trampoline "
                   "attaches to any kernel function (`kfunc:vfs_read`: %s)" %
                   (k["kfunc_vmlinux"] or "not tried").rstrip("."))
    if "kfunc" in setup and not k["module_btf"]:
        why.append("fw_bench.ko has no BTF" + (": " + k["module_btf_why"]
                                                if k.get("module_btf_why") else ""))
    return "; ".join(why + ["bpftrace said: %s" % said])


def fmt(v, spec="%d"):
    return "n/a" if v is None else spec % v


# The tables.

def insn_table(kernels, setups, b):
    w = [max(len(k), 6) for k in kernels]
    out = ["%-36s" % "setup" + "".join(" %*s %6s" % (n, k, "/func") for n, k in zip(w, kernels))]
    for s in setups:
        row = "%-36s" % s
        for n, k in zip(w, kernels):
            i = b[k]["instructions"]
            row += " %*s %6s" % (n, fmt(i.get(s)), ratio(i.get(s), i["function"]))
        out.append(row)
    return out


def spread_line(kernels, setups, b):
    worst = max(((b[k]["spread"][s][1] - b[k]["spread"][s][0], s, k) for k in kernels
                 for s in setups if s in b[k]["spread"]))
    wall = sum(sum(b[k]["_"]["wall_seconds"].values()) for k in kernels)
    return ("The runs of a setup differed by at most %d instructions a call (`%s` on %s). "
            "The guests of this run took %d minutes." % (worst + (round(wall / 60),)))


def not_measured(kernels, setups, b):
    """Per kernel, the setups that did not run, those with the same reason on one line."""
    out = []
    for k in kernels:
        why = {}
        for s in setups:
            if s in b[k]["_"]["not_measured"]:
                why.setdefault(why_long(b[k]["_"], s), []).append("`%s`" % s)
        out += ["- %s, %s: %s." % (k, ", ".join(names), w) for w, names in why.items()]
    return out


LAYERS = [
    ("ftrace's hook", lambda k, i: hook(k)),
    ("ftrace's hook and dispatch to a module's ops (`nop_ops` − `untraced`)",
     lambda k, i: i["nop_ops"] - i["untraced"]),
    ("what a module's ops pays that the top-level function tracer's does not "
     "(`function_instance` − `function`): the list dispatch, where only the module's "
     "goes through the list",
     lambda k, i: i["function_instance"] - i["function"]),
    ("ring buffer reserve + commit of one word (`probe_ring_buffer` − `nop_ops`)",
     lambda k, i: i["probe_ring_buffer"] - i["nop_ops"]),
    ("the trace event's layers above it: tracepoint, `trace_event_buffer_reserve`, commit "
     "(`probe_trace_event` − `probe_ring_buffer`)",
     lambda k, i: i["probe_trace_event"] - i["probe_ring_buffer"]),
    ("framewalk's fixed cost with the event off: recursion lock, ops check, counter "
     "(`d0_events_off` − `nop_ops`)",
     lambda k, i: i["framewalk_d0_events_off"] - i["nop_ops"]),
    ("framewalk's event with no ancestor beyond the event itself (`d0_events_on` − "
     "`probe_trace_event`)",
     lambda k, i: i["framewalk_d0_events_on"] - i["probe_trace_event"]),
    ("each ancestor, event on (`(d16 − d0) / 16`)",
     lambda k, i: "%.1f" % ((i["framewalk_d16_events_on"] - i["framewalk_d0_events_on"]) / 16)),
    ("each ancestor, counted (`(d32_aggregate − d16_aggregate) / 16`)",
     lambda k, i: "%.1f" % ((i["framewalk_d32_aggregate"] - i["framewalk_d16_aggregate"]) / 16)),
    ("a process list checked on a walked hit (`d16_events_on_pid_checked` − `d16_events_on`)",
     lambda k, i: "%+d" % (i["framewalk_d16_events_on_pid_checked"] -
                           i["framewalk_d16_events_on"])),
    ("a hit the process lists leave out (`d16_pid_excluded`)",
     lambda k, i: i["framewalk_d16_pid_excluded"]),
    ("the event without `records[]` (`d16_events_on_no_records` − `d16_events_on`)",
     lambda k, i: "%+d" % (i["framewalk_d16_events_on_no_records"] -
                           i["framewalk_d16_events_on"])),
    ("`user=0`, loaded and off (`d16_events_on_user0` − `d16_events_on`)",
     lambda k, i: user_off(i)),
    ("each user frame (`(d16_events_on_user64 − d16_events_on_user2)` / their frames' "
     "difference)", lambda k, i: user_frame(k, i)),
]


def user_off(i):
    """What user=0 adds to the event's hit; n/a in a run from before user frames."""
    if "framewalk_d16_events_on_user0" not in i:
        return "n/a"
    return "%+d" % (i["framewalk_d16_events_on_user0"] - i["framewalk_d16_events_on"])


def user_frame(k, i):
    """Instructions a user frame, from two user settings and the frames their events had."""
    f = k.get("user_frames", {})
    if "framewalk_d16_events_on_user64" not in i or f.get("64", 0) <= f.get("2", 0):
        return "n/a"
    return "%.1f" % ((i["framewalk_d16_events_on_user64"] - i["framewalk_d16_events_on_user2"]) /
                     (f["64"] - f["2"]))


def md_table(head, kernels, rows):
    out = ["| %s | %s |" % (head, " | ".join(kernels)), "|---" * (len(kernels) + 1) + "|"]
    out += ["| %s | %s |" % (what, " | ".join(str(c) for c in cells)) for what, cells in rows]
    return out


def layer_table(kernels, b):
    return md_table("instructions per call", kernels,
                    [(what, [f(b[k]["_"], b[k]["instructions"]) for k in kernels])
                     for what, f in LAYERS])


def hooks_text(kernels, b):
    """What a module's ops pays before its callback runs: the hook and the list dispatch,
    told apart as far as the kernel's configuration lets the setups tell them apart."""
    out = []
    for k in kernels:
        i, c = b[k]["instructions"], b[k]["_"]["config"]
        ops, over = i["nop_ops"] - i["untraced"], i["function_instance"] - i["function"]
        head = "- **%s** (%s): ftrace adds %d instructions to a call before a module's " \
            "callback runs (`nop_ops` − `untraced`)" % (k, hook(b[k]["_"]), ops)
        if c.get("CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS") == "y":
            out.append(head + ": the hook and a direct call to the ops of that call site, "
                       "as for the function tracer's (`function_instance` − `function` = %d)."
                       % over)
        elif c.get("CONFIG_DYNAMIC_FTRACE_WITH_REGS") == "y" or \
                c.get("CONFIG_DYNAMIC_FTRACE_WITH_ARGS") == "y":
            out.append(head + ". A module's ops is called through `ftrace_ops_list_func()`, the "
                       "top-level function tracer's static ops directly: the list dispatch costs "
                       "%d (`function_instance` − `function`), the hook and its call %d."
                       % (over, ops - over))
        else:
            text = head + ". The hook passes no ops (no `ARCH_SUPPORTS_FTRACE_OPS`), so " \
                "ftrace calls every callback through `ftrace_ops_list_func()`, the top-level " \
                "function tracer's too (`function_instance` − `function` = %d): the %d are the " \
                "hook and the list dispatch together." % (over, ops)
            # The same kernel with the patchable entry measures the same list code.
            twin = [t for t in kernels if t != k and t.split("-")[0] == k.split("-")[0] and
                    hook(b[t]["_"]).startswith("patchable")]
            if twin:
                j = b[twin[0]]["instructions"]
                lst = j["function_instance"] - j["function"]
                text += " If the list costs what it costs on %s (%d, the same `ftrace.c`), the " \
                    "`_mcount` hook and its call are the other %d." % (twin[0], lst, ops - lst)
            out.append(text)
    return out


TARGETS = [
    ("d16 with the event ≤ 2.0× `function`", 2.0,
     lambda i, k: i["framewalk_d16_events_on"] / i["function"]),
    ("d16 with the event ≤ 0.25× `function_stack_trace`", 0.25,
     lambda i, k: i["framewalk_d16_events_on"] / i["function_stack_trace"]),
    ("event off ≤ 2.0× `nop_ops`", 2.0,
     lambda i, k: i["framewalk_d16_events_off"] / i["nop_ops"]),
    ("≤ 16 instructions an ancestor (event on)", 16,
     lambda i, k: (i["framewalk_d16_events_on"] - i["framewalk_d0_events_on"]) / 16),
    ("d16 aggregated ≤ 1.0× `function`", 1.0,
     lambda i, k: i["framewalk_d16_aggregate"] / i["function"]),
    ("≤ 40 instructions a user frame (event on, `user=64`)", 40,
     lambda i, k: user_frame(k, i)),
]


def targets_table(kernels, b):
    rows = []
    for what, limit, f in TARGETS:
        cells = []
        for k in kernels:
            i = b[k]["instructions"]
            # k: the run's other figures (a user frame's target needs the frames counted).
            v = f(i, b[k]["_"])
            if v == "n/a":
                cells.append(v)
                continue
            shown = ("%.1f" if limit >= 16 else "%.2f×") % float(v)
            cells.append("%s %s" % (shown, "met" if float(shown.rstrip("×")) <= limit
                                    else "**not met**"))
        rows.append((what, cells))
    rows.append(("for comparison: d16 with the event against `function_instance`",
                 ["%s×" % ratio(b[k]["instructions"]["framewalk_d16_events_on"],
                                b[k]["instructions"]["function_instance"]) for k in kernels]))
    rows.append(("for comparison: d16 aggregated against `function_instance`",
                 ["%s×" % ratio(b[k]["instructions"]["framewalk_d16_aggregate"],
                                b[k]["instructions"]["function_instance"]) for k in kernels]))
    return md_table("target (instructions)", kernels, rows)


AGGREGATE_ROWS = ["nop_ops", "function", "function_instance", "framewalk_d16_events_on",
                  "framewalk_d0_aggregate", "framewalk_d16_aggregate", "framewalk_d32_aggregate"]


def aggregate_table(kernels, b):
    w = [max(len(k), 6) for k in kernels]
    out = ["%-28s" % "setup" + "".join(" %*s %6s" % (n, k, "/func") for n, k in zip(w, kernels))]
    for s in AGGREGATE_ROWS:
        out.append("%-28s" % s + "".join(
            " %*d %6s" % (n, b[k]["instructions"][s],
                          ratio(b[k]["instructions"][s], b[k]["instructions"]["function"]))
            for n, k in zip(w, kernels)))
    return out


def aggregate_counts(kernels, b):
    """Whether every walked call was counted, from the runs' own counters."""
    lost = ["%s depth %d: %d walks, %d aggregated, %d dropped" %
            (k, a["depth"], a["walks"], a["aggregated"], a["dropped"])
            for k in kernels for a in b[k]["_"]["aggregate"]
            if a["walks"] != a["aggregated"] or a["dropped"]]
    if lost:
        return ["Calls the aggregation did not count: " + "; ".join(lost) + "."]
    return ["Every walked call was counted in each of these runs: `walks` = `aggregated`, "
            "`aggregate_dropped` 0, on every kernel and depth."]


LATENCY_ROWS = [("framewalk, depth 16 timed (`framewalk_d16_latency`)", "framewalk_d16_latency"),
                ("function_graph on the same function (`function_graph`)", "function_graph"),
                ("bpftrace `kprobe:`+`kretprobe:` `@[kstack(16)] = hist(ns)`",
                 "bpftrace_kretprobe_hist16")]
LATENCY_TARGETS = [("≤ 1.5× `function_graph`", 1.5, "function_graph"),
                   ("≤ 0.25× bpftrace `kprobe:`+`kretprobe:` with `hist()`", 0.25,
                    "bpftrace_kretprobe_hist16")]


def latency_block(kernels, b):
    """Latency mode's cost per call, entry and exit, against the two that time calls."""
    rows = []
    for what, s in LATENCY_ROWS:
        cells = []
        for k in kernels:
            v = b[k]["instructions"].get(s)
            cells.append("%d" % v if v is not None else "n/a: " + why_short(b[k]["_"], s))
        rows.append((what, cells))
    for what, limit, peer in LATENCY_TARGETS:
        cells = []
        for k in kernels:
            i = b[k]["instructions"]
            if i.get("framewalk_d16_latency") is None or i.get(peer) is None:
                cells.append("n/a")
                continue
            r = i["framewalk_d16_latency"] / i[peer]
            cells.append("%.2f× %s" % (r, "met" if round(r, 2) <= limit else "**not met**"))
        rows.append((what, cells))
    out = md_table("instructions per call, entry and exit", kernels, rows)
    lost = ["%s: %d returns charged, %d untimed, %d missed" %
            (k, b[k]["_"]["latency"].get("returns", 0), b[k]["_"]["latency"].get("untimed", 0),
             b[k]["_"]["latency"].get("missed", 0))
            for k in kernels if b[k]["_"].get("latency") and
            (b[k]["_"]["latency"].get("untimed") or b[k]["_"]["latency"].get("missed"))]
    out += ["", "Not every call was timed: " + "; ".join(lost) + "." if lost else
            "Every call of each run was timed and charged to its chain: `latency_untimed` and "
            "`latency_missed` 0 on every kernel."]
    return out


BPF_ROWS = [("framewalk, depth 16 counted (`framewalk_d16_aggregate`)", "framewalk_d16_aggregate"),
            ("framewalk, depth 16 event (`framewalk_d16_events_on`)", "framewalk_d16_events_on"),
            ("bpftrace `kprobe:` `@[kstack(16)] = count()`", "bpftrace_kprobe_kstack16"),
            ("bpftrace `kprobe:` `@ = count()`", "bpftrace_kprobe_count"),
            ("bpftrace `kfunc:` `@[kstack(16)] = count()`", "bpftrace_kfunc_kstack16"),
            ("bpftrace `kfunc:` `@ = count()`", "bpftrace_kfunc_count")]


def frame_name(f):
    return f.split("+")[0]


def bpftrace_block(kernels, b):
    rows = []
    for what, s in BPF_ROWS:
        cells = []
        for k in kernels:
            i = b[k]["instructions"]
            if i.get(s) is None:
                cells.append("n/a: " + why_short(b[k]["_"], s))
            elif s.startswith("bpftrace"):
                cells.append("%d (%s×)" % (i[s], ratio(i[s], i["framewalk_d16_aggregate"])))
            else:
                cells.append("%d" % i[s])
        rows.append((what, cells))
    out = md_table("instructions per call (× framewalk counted)", kernels, rows)
    out += [""] + ["Where a probe could not run:", ""] + \
        not_measured(kernels, [s for _, s in BPF_ROWS], b)
    miss = ["%s `%s` counted %d of %d calls" % (k, s, c[0], c[1]) for k in kernels
            for s, c in sorted(b[k]["_"]["counted"].items()) if c[0] != c[1]]
    miss += ["%s `%s`: no count, %s" % (k, s, why) for k in kernels
             for s, why in sorted(b[k]["_"].get("stuck", {}).items())]
    out += ["", ("bpftrace's maps held a count for every call of each measured run."
                 if not miss else "Not every call was counted: " + "; ".join(miss) + ".")]
    # One stack of each, from the newest kernel that printed both.
    shown = [k for k in kernels if all(b[k]["_"]["stacks"].get(p, ["none"])[0][:4] != "none"
                                       for p in ("kprobe", "kfunc"))]
    kprobe = [k for k in kernels if b[k]["_"]["stacks"].get("kprobe", ["none"])[0][:4] != "none"]
    if kprobe:
        lacks = [k for k in kprobe if "fw_bench_loop" not in
                 map(frame_name, b[k]["_"]["stacks"]["kprobe"])]
        out += ["", "What the stacks hold: bpftrace printed one of each in the same boots. "
                "The traced function is `fw_bench_tracee`, called by `fw_bench_loop`, called by "
                "`fw_bench_nest` 41 times over."]
        if lacks == kprobe:
            where = "missing"
        elif lacks:
            where = "missing on " + ", ".join(lacks)
        else:
            where = "there"
        out += ["", "- `kprobe:` on %s: the stack goes from `%s` to `%s`; `fw_bench_loop`, "
                "the caller, is %s (bpftrace issue #4159: at a function's entry its return "
                "address is still in the link register, not yet in a frame record, and the "
                "unwinder starts from the frame records)." %
                (", ".join(kprobe), b[kprobe[-1]]["_"]["stacks"]["kprobe"][0],
                 b[kprobe[-1]]["_"]["stacks"]["kprobe"][1], where)]
    for k in kernels:
        st = b[k]["_"]["stacks"].get("kfunc")
        if not st or st[0].startswith("none"):
            continue
        own = next((n for n, f in enumerate(st) if frame_name(f) == "fw_bench_tracee"), len(st))
        bpf = []
        for f in st[:own]:
            name = "`%s`" % frame_name(f)
            bpf.append(name + " again" if name in bpf else name)
        out += ["- `kfunc:` on %s: the first %d of its %d frames are BPF's own (%s), then `%s`%s."
                % (k, own, len(st), ", ".join(bpf),
                   st[own] if own < len(st) else "nothing of the traced code",
                   " and its caller `%s`" % st[own + 1] if own + 1 < len(st) else "")]
    if shown:
        k = shown[-1]
        kp, kf = b[k]["_"]["stacks"]["kprobe"], b[k]["_"]["stacks"]["kfunc"]
        out += ["", "```", "%-40s %s" % ("kprobe:fw_bench_tracee, " + k,
                                         "kfunc:fw_bench_tracee, " + k)]
        out += ["%-40s %s" % (kp[n] if n < len(kp) else "", kf[n] if n < len(kf) else "")
                for n in range(6)] + ["%-40s %s" % ("...", "..."), "```"]
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
            "eu-stack: " + a["eu_stack"]]
    f = a.get("fleet")
    if f:
        out += ["fleet: %d dumps of %d builds found by build-id, dumps/s: batch %d, one process "
                "per dump %d (sample of %d), gdb per dump %d (sample of %d ELF cores); %d failed, "
                "%d images opened, %d crash groups (summary %.2f ms)"
                % (f["dumps"], f["builds"], f["batch_dumps_per_s"], f["per_process_dumps_per_s"],
                   f["per_process_sample"], f["gdb_dumps_per_s"], f["gdb_sample"], f["failed"],
                   f["images_opened"], f["crash_groups"], f["summary_ms"]),
                "fleet peak RSS: %d KB for %d dumps, %d KB for %d, %d KB with --image-cache 4"
                % (f["batch_peak_rss_kb"], f["dumps"], f["tenth_peak_rss_kb"], f["dumps"] // 10,
                   f["cache4_peak_rss_kb"]),
                "target (issue: fleet batch >= 100x gdb per dump): %.1fx, %s"
                % (f["batch_dumps_per_s"] / f["gdb_dumps_per_s"],
                   "met" if f["batch_dumps_per_s"] / f["gdb_dumps_per_s"] >= 100 else "not met"),
                "target (issue: cold start on the large firmware >= 10x gdb): %.1fx, %s"
                % (b["gdb_cold"] / b["crashwalk_cold"],
                   "met" if b["gdb_cold"] / b["crashwalk_cold"] >= 10 else "not met")]
    out += ["target (issue: >= 100x faster than gdb per dump in batch mode): %.1fx on the large "
            "firmware in a batch of %d, %s"
            % (r, b["batch_long"], "met" if r >= 100 else "not met")]
    return out


def figures(bench):
    """Per kernel its instruction counts, every setup named (None where it did not run),
    and the rest of its record under "_"."""
    kernels, setups = list(bench["kernels"]), bench["setups"]
    b = {}
    for k in kernels:
        rec = bench["kernels"][k]
        b[k] = {"instructions": {s: rec["instructions"].get(s) for s in setups},
                "spread": rec["spread"], "_": rec}
    return kernels, setups, b


def blocks(bench, analyzer):
    kernels, setups, b = figures(bench)
    fence = ["```"]
    return [("instructions", fence + insn_table(kernels, setups, b) + fence +
             ["", spread_line(kernels, setups, b)]),
            ("layers", layer_table(kernels, b)),
            ("hooks", hooks_text(kernels, b)),
            ("targets", targets_table(kernels, b)),
            ("aggregate", fence + aggregate_table(kernels, b) + fence + [""] +
             aggregate_counts(kernels, b)),
            ("bpftrace", bpftrace_block(kernels, b)),
            ("latency", latency_block(kernels, b))] + \
        ([("analyzer", fence + analyzer_block(analyzer) + fence)] if analyzer else [])


def report(d, kernels):
    """The text make bench prints: the README's tables, and what only the run's log needs."""
    bench = report_json(d, kernels)
    kernels, setups, b = figures(bench)
    out = ["framewalk benchmark: cost per call of a traced noinline function",
           "host: %s; guest: %s" % (bench["machine"]["cpu"], bench["machine"]["guest"]), "",
           "executed instructions per call (qemu -icount shift=0, the median of 3 runs):"]
    out += insn_table(kernels, setups, b) + [spread_line(kernels, setups, b)]
    out += ["", "n/a:"] + not_measured(kernels, setups, b)
    out += ["", "TCG nanoseconds per call (the median of 3, a second opinion; bpftrace only in "
            "instructions):"]
    w = [max(len(k), 9) for k in kernels]
    out.append("%-36s" % "setup" + "".join(" %*s" % (n, k) for n, k in zip(w, kernels)))
    for s in setups:
        out.append("%-36s" % s + "".join(" %*s" % (n, fmt(b[k]["_"]["ns"].get(s), "%.1f"))
                                         for n, k in zip(w, kernels)))
    for name, lines in blocks(bench, None)[1:]:
        out += ["", name + ":"] + lines
    out += ["", "the event's rate, depth 16, a raw reader per CPU (TCG time):"]
    for k in kernels:
        s = b[k]["_"]["sustained"]
        if not s:
            continue
        t = s["ns"] / 1e9
        out.append("  %s: %.0f events/s written, %.0f/s kept, %d dropped of %d (buffer %d KB/CPU);"
                   " drop-free: %s events/s" %
                   (k, s["events"] / t, (s["events"] - s["dropped"]) / t, s["dropped"],
                    s["events"], s["buffer_kb"], b[k]["_"]["drop_free_per_s"] or "none found"))
    print("\n".join(out))


# README.md's blocks.

def block(text, name):
    m = re.search(r"<!-- bench:%s -->\n(.*?)<!-- /bench:%s -->\n" % (name, name), text, re.S)
    if not m:
        sys.exit("bench-readme: no <!-- bench:%s --> block in the README" % name)
    return m


def hand_copied(path, text):
    """Measured figures quoted outside the generated blocks."""
    outside = re.sub(r"<!-- bench:(\S+) -->\n.*?<!-- /bench:\1 -->\n",
                     lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return ["%s:%d: %s" % (path, outside.count("\n", 0, m.start()) + 1,
                           " ".join(m.group(0).split())) for m in MEASURED.finditer(outside)]


def load(d):
    with open(os.path.join(d, "bench.json")) as f:
        bench = json.load(f)
    with open(os.path.join(d, "analyzer.json")) as f:
        return bench, json.load(f)


def main(argv):
    args, json_dir, mode = list(argv), None, None
    if args[:1] == ["--report"] and len(args) > 2:
        return report(args[1], args[2:])
    if "--json" in args:
        i = args.index("--json")
        json_dir = args[i + 1]
        del args[i:i + 2]
    for m in ("--update", "--check"):
        if m in args:
            mode = m
            args.remove(m)
    if not mode or len(args) > 1:
        sys.exit("usage: bench-readme.py --report DIR KERNEL...\n"
                 "       bench-readme.py [--json DIR] (--update | --check) [README.md]")
    path = args[0] if args else os.path.join(TOP, "README.md")
    with open(path) as f:
        text = f.read()
    bench, analyzer = load(json_dir or RESULTS)
    new = text
    for name, lines in blocks(bench, analyzer):
        m = block(new, name)
        new = new[:m.start(1)] + "\n".join(lines) + "\n" + new[m.end(1):]
    if mode == "--update":
        if json_dir and os.path.abspath(json_dir) != RESULTS:
            os.makedirs(RESULTS, exist_ok=True)
            for f in ("bench.json", "analyzer.json"):
                shutil.copy(os.path.join(json_dir, f), RESULTS)
        if new != text:
            with open(path, "w") as f:
                f.write(new)
            print("bench-readme: rewrote the benchmark blocks of " + path)
        return 0
    rc = 0
    if new != text:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   path, path + " (generated)"))
        print("bench-readme: %s: a benchmark block is not what its figures give; "
              "scripts/bench-readme.py --update %s" % (path, path))
        rc = 1
    root = os.path.dirname(os.path.abspath(path))
    for p in PROSE:
        full = os.path.join(root, p)
        if os.path.exists(full):
            with open(full) as f:
                found = hand_copied(p, new if p == "README.md" else f.read())
            for line in found:
                print("bench-readme: a measured figure outside the generated blocks: " + line)
            rc |= bool(found)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
