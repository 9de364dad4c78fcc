#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# test_fleet.py - crashwalk for a fleet on the crash corpus: firmware found by build-id (symbol directories, a real debuginfod server), --batch, summary; KTAP.
"""
Usage: test_fleet.py --crashwalk CRASHWALK --corpus-script tests/firmware/run-corpus.sh

What is checked, on every dump the firmware's own fault handler wrote (core.elf, core.zephyr:
both carry the build-id note the firmware keeps in flash):
- the dump's build-id is the firmware's, read from its memory;
- --symbols on a flat directory of the corpus ELFs, and on a .build-id tree, finds each dump's
  firmware: the same frames and signature as with the ELF given;
- Debian's debuginfod (debuginfod -F over a directory of the corpus ELFs, on a port of its own,
  waited for until it serves every build-id) gives each dump its firmware through
  libdebuginfod: the same frames and signature again, in one --batch over all dumps;
- an unknown build-id, a server that is down, one that never answers (no wait past
  DEBUGINFOD_TIMEOUT) and one that answers with another firmware: each a clear error, the last
  refused; a dump without a build-id and no ELF: exit status 2 saying how to give one;
- --batch over good and bad dumps: one JSON line each, errors counted, the batch goes on;
  --image-cache 2 opens a firmware again only when it was evicted;
- crashwalk summary: one group per signature, counts adding up to the dumps, most first; the
  same crash in two builds that differ only in code placement (the corpus's m3 -O2 firmware,
  and its sources linked in another order, crashed under QEMU) in one group with both builds.
The server is stopped whatever happens.
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ktap import Ktap  # noqa: E402

DUMPS = ["core.elf", "core.zephyr"]
TIMEOUT = 3		# DEBUGINFOD_TIMEOUT for the servers that fail


def build_id(elf):
    """The ELF's GNU build-id, as readelf prints it."""
    r = subprocess.run(["arm-none-eabi-readelf", "-n", elf], capture_output=True, text=True,
                       check=True)
    for line in r.stdout.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def run(cw, args, env=None, stdin=None, timeout=600):
    """crashwalk ARGS, -q unless a --batch (its count is a note); no DEBUGINFOD_URLS but env's."""
    e = dict(os.environ, **(env or {}))
    if "DEBUGINFOD_URLS" not in (env or {}):
        e.pop("DEBUGINFOD_URLS", None)
    quiet = [] if "--batch" in args else ["-q"]
    return subprocess.run([cw] + quiet + args, capture_output=True, text=True, env=e,
                          input=stdin, timeout=timeout)


def reports(stdout):
    """{dump path: report object}."""
    out = {}
    for line in stdout.splitlines():
        j = json.loads(line)
        out[j["dump"]["path"]] = j
    return out


def chain(j):
    """What must not change with the way the firmware was found."""
    if "error" in j:
        return ("error", j["error"])
    return ([(f["pc"], f["sp"], f["function"]) for f in j["frames"]], j["signature"],
            j["fault"]["class"])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Debuginfod:
    """debuginfod -F DIR on a port of its own; stop() always, also from a signal."""

    def __init__(self, root, tmp):
        self.port = free_port()
        self.log = open(os.path.join(tmp, "debuginfod.log"), "w")
        self.proc = subprocess.Popen(
            ["debuginfod", "-F", "-L", "-c", "1", "-g", "0", "-p", str(self.port),
             "-d", os.path.join(tmp, "debuginfod.sqlite"), root],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = "http://127.0.0.1:%d" % self.port

    def serves(self, bid):
        try:
            with urllib.request.urlopen("%s/buildid/%s/debuginfo" % (self.url, bid),
                                        timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def wait(self, ids, limit=180):
        """Until every build-id is served (the scan is done), or the limit."""
        end = time.time() + limit
        left = set(ids)
        while left and time.time() < end and self.proc.poll() is None:
            left = {b for b in left if not self.serves(b)}
            if left:
                time.sleep(0.5)
        return not left

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


class WrongServer(http.server.BaseHTTPRequestHandler):
    """A debuginfod that answers every build-id with the same file: another firmware."""
    body = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


def serve_forever_in_thread(server):
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crashwalk", required=True)
    ap.add_argument("--corpus-script", required=True)
    a = ap.parse_args()
    cw = os.path.abspath(a.crashwalk)
    ktap = Ktap("fleet")
    r = subprocess.run([a.corpus_script], capture_output=True, text=True, timeout=2700)
    cases = [line.split() for line in r.stdout.splitlines() if line.strip()]
    if r.returncode or not cases or not shutil.which("debuginfod"):
        ktap.note("corpus build failed or no debuginfod (scripts/deps.sh installs it):\n" +
                  r.stderr)
        ktap.result(False, "fleet_setup")
        return ktap.done()

    tmp = tempfile.mkdtemp(prefix="cw-fleet-")
    server = None
    try:
        fws = {}		# firmware dir -> (elf, build-id)
        dumps = []		# (dump, elf)
        for core, flavour, case, d in cases:
            fwdir = os.path.dirname(d)
            if fwdir not in fws:
                elf = os.path.join(fwdir, "fw.elf")
                fws[fwdir] = (elf, build_id(elf))
            dumps += [(os.path.join(d, n), fws[fwdir][0]) for n in DUMPS]
        ids = {bid for _, bid in fws.values()}
        ktap.result(len(ids) == len(fws) and None not in ids,
                    "corpus_firmware_have_distinct_build_ids")

        # The reference: each firmware given by hand, all of its dumps in one run.
        given = {}
        for elf, _ in fws.values():
            mine = [dp for dp, e in dumps if e == elf]
            given.update(reports(run(cw, ["--json", elf] + mine).stdout))
        bid_of = {e: b for e, b in fws.values()}
        wrong = [dp for dp, e in dumps
                 if given.get(dp, {}).get("dump", {}).get("build_id") != bid_of[e]]
        ktap.note("dumps whose build-id is not their firmware's: %s" % wrong[:5])
        ktap.result(not wrong and len(given) == len(dumps), "dump_build_id_is_the_firmware_s")

        # A flat directory of the ELFs, and a .build-id tree.
        flat = os.path.join(tmp, "flat")
        tree = os.path.join(tmp, "tree")
        os.makedirs(flat)
        for i, (elf, bid) in enumerate(fws.values()):
            os.symlink(elf, os.path.join(flat, "fw%02d.elf" % i))
            sub = os.path.join(tree, ".build-id", bid[:2])
            os.makedirs(sub, exist_ok=True)
            shutil.copy(elf, os.path.join(sub, bid[2:] + ".debug"))
        for name, store in (("flat", flat), ("build_id_tree", tree)):
            p = run(cw, ["--json", "--symbols", store] + [dp for dp, _ in dumps])
            got = reports(p.stdout)
            diff = [dp for dp, _ in dumps if dp not in got or chain(got[dp]) != chain(given[dp])]
            ktap.note("%s: %d dumps differ from the ELF given, e.g. %s" %
                      (name, len(diff), diff[:3]))
            ktap.result(p.returncode == 0 and not diff,
                        "symbols_%s_same_chains_as_the_elf_given" % name)

        # A real debuginfod over a directory of the corpus firmware.
        root = os.path.join(tmp, "served")
        os.makedirs(root)
        for i, (elf, _) in enumerate(fws.values()):
            shutil.copy(elf, os.path.join(root, "fw%02d.elf" % i))
        server = Debuginfod(root, tmp)
        ktap.result(server.wait(ids), "debuginfod_scanned_every_firmware")
        env = {"DEBUGINFOD_URLS": server.url,
               "DEBUGINFOD_CACHE_PATH": os.path.join(tmp, "client-cache"),
               "DEBUGINFOD_TIMEOUT": "30"}
        listing = "".join(dp + "\n" for dp, _ in dumps)
        p = run(cw, ["--batch"], env, listing)
        got = reports(p.stdout)
        diff = [dp for dp, _ in dumps if dp not in got or chain(got[dp]) != chain(given[dp])]
        ktap.note("debuginfod: %d dumps differ from the ELF given, e.g. %s; stderr %s" %
                  (len(diff), diff[:3], p.stderr[-300:]))
        ktap.result(p.returncode == 0 and not diff and len(p.stdout.splitlines()) == len(dumps),
                    "debuginfod_batch_same_chains_as_the_elf_given")
        ktap.result("%d dumps, 0 failed, %d firmware image%s opened"
                    % (len(dumps), len(fws), "" if len(fws) == 1 else "s")
                    in p.stderr.replace("crashwalk: ", ""),
                    "batch_opens_each_firmware_once")
        # --image-cache 2: four firmware's dumps grouped by firmware open each once;
        # round-robin over the four, every dump evicts the image the next one needs.
        four = [e for e, _ in fws.values()][:4]
        grouped = [dp for e in four for dp in [dp for dp, e2 in dumps if e2 == e][:2]]
        robin = [grouped[2 * i + k] for k in range(2) for i in range(4)]
        opened = [run(cw, ["--batch", "--image-cache", "2", "--symbols", flat], None,
                      "".join(d + "\n" for d in order)).stderr for order in (grouped, robin)]
        ktap.note("image cache 2: %s" % opened)
        ktap.result("8 dumps, 0 failed, 4 firmware images opened" in opened[0] and
                    "8 dumps, 0 failed, 8 firmware images opened" in opened[1],
                    "image_cache_bounded_and_reused")

        # An unknown build-id: the core's note names one that no place has.
        addseg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "add_segment.py")
        first_dump = dumps[0][0]
        unknown = os.path.join(tmp, "unknown.core")
        subprocess.run([sys.executable, addseg, first_dump, unknown, "--build-id",
                        "00112233445566778899aabbccddeeff00112233"], check=True)
        p = run(cw, [unknown], env)
        ktap.note(p.stderr)
        ktap.result(p.returncode == 1 and "00112233445566778899aabbccddeeff00112233" in p.stderr
                    and server.url in p.stderr and "not there" in p.stderr,
                    "unknown_build_id_names_the_id_and_the_places")

        # Servers that fail: down, silent, and one that hands back another firmware.
        down = "http://127.0.0.1:%d" % free_port()
        t0 = time.time()
        p = run(cw, [first_dump], dict(env, DEBUGINFOD_URLS=down,
                                       DEBUGINFOD_TIMEOUT=str(TIMEOUT),
                                       DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "c-down")))
        ktap.note(p.stderr)
        ktap.result(p.returncode == 1 and down in p.stderr and time.time() - t0 < 30,
                    "server_down_is_a_clear_error")
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = "http://127.0.0.1:%d" % silent.getsockname()[1]
        t0 = time.time()
        p = run(cw, [first_dump], dict(env, DEBUGINFOD_URLS=url,
                                       DEBUGINFOD_TIMEOUT=str(TIMEOUT),
                                       DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "c-silent")),
                timeout=120)
        took = time.time() - t0
        silent.close()
        ktap.note("silent server: %.1f s: %s" % (took, p.stderr))
        ktap.result(p.returncode == 1 and url in p.stderr and took < 4 * TIMEOUT + 10,
                    "silent_server_times_out")
        elfs = [e for e, _ in fws.values()]
        WrongServer.body = open(elfs[1] if dumps[0][1] == elfs[0] else elfs[0], "rb").read()
        httpd = http.server.HTTPServer(("127.0.0.1", 0), WrongServer)
        serve_forever_in_thread(httpd)
        url = "http://127.0.0.1:%d" % httpd.server_address[1]
        p = run(cw, [first_dump], dict(env, DEBUGINFOD_URLS=url,
                                       DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "c-wrong")))
        ktap.note(p.stderr)
        ktap.result(p.returncode == 1 and "refused" in p.stderr and not p.stdout,
                    "wrong_file_from_a_server_refused")

        # The ELF given wins over every place (the wrong server still up), and a build-id
        # contradicting it is refused.
        p = run(cw, ["--json", dumps[0][1], first_dump],
                dict(env, DEBUGINFOD_URLS=url,
                     DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "c-wrong2")))
        httpd.shutdown()
        httpd.server_close()
        got = reports(p.stdout).get(first_dump, {})
        ktap.result(p.returncode == 0 and (got.get("firmware") or {}).get("path") == dumps[0][1]
                    and chain(got) == chain(given[first_dump]), "elf_given_wins")
        p = run(cw, [dumps[0][1], unknown])
        ktap.result(p.returncode == 1 and "build-id" in p.stderr, "contradicting_build_id_refused")

        # No build-id and no ELF: a usage error saying how to give one.
        bare = os.path.join(tmp, "bare.core")
        with open(first_dump, "rb") as fh:
            data = fh.read()
        # The note in the dumped flash, made unreadable: its type word no longer says build-id.
        data = data.replace(b"\x03\x00\x00\x00GNU\x00", b"\x09\x00\x00\x00GNU\x00")
        with open(bare, "wb") as fh:
            fh.write(data)
        p = run(cw, ["--symbols", flat, bare])
        ktap.note(p.stderr)
        ktap.result(p.returncode == 2 and "no GNU build-id" in p.stderr and
                    "FIRMWARE.elf" in p.stderr, "no_build_id_and_no_elf_is_a_usage_error")

        # A batch over good and bad dumps goes on, one line each, errors counted.
        bad = os.path.join(tmp, "bad.core")
        with open(bad, "wb") as fh:
            fh.write(b"not a dump\n")
        mixed = [dp for dp, _ in dumps[:4]] + [bad, unknown, bare] + [dp for dp, _ in dumps[4:8]]
        p = run(cw, ["--batch", "--symbols", flat, "--no-debuginfod"], None,
                "".join(d + "\n" for d in mixed))
        lines = [json.loads(x) for x in p.stdout.splitlines()]
        errs = [j for j in lines if "error" in j]
        ktap.note(p.stderr)
        ktap.result(len(lines) == len(mixed) and len(errs) == 3 and
                    "%d dumps, 3 failed" % len(mixed) in p.stderr,
                    "batch_goes_on_and_counts_failures")

        # summary over the debuginfod batch: groups by signature, most first.
        batch_out = os.path.join(tmp, "batch.jsonl")
        with open(batch_out, "w") as fh:
            fh.write("".join(json.dumps(given[dp]) + "\n" for dp, _ in dumps))
            fh.write("".join(json.dumps(j) + "\n" for j in errs))
        p = subprocess.run([cw, "summary", "--json", batch_out], capture_output=True, text=True)
        s = json.loads(p.stdout)
        sigs = {}
        for dp, _ in dumps:
            sigs[given[dp]["signature"]] = sigs.get(given[dp]["signature"], 0) + 1
        counts = [g["count"] for g in s["groups"]]
        ktap.result(p.returncode == 0 and s["dumps"] == len(dumps) + 3 and s["failed"] == 3 and
                    {g["signature"]: g["count"] for g in s["groups"]} == sigs and
                    counts == sorted(counts, reverse=True),
                    "summary_groups_by_signature_most_first")
        t = subprocess.run([cw, "summary", batch_out], capture_output=True, text=True)
        ktap.result(t.returncode == 0 and t.stdout.startswith("%d dumps: %d analyzed in %d crash"
                                                              % (len(dumps) + 3, len(dumps),
                                                                 len(sigs))),
                    "summary_text_counts")
        # The same crash in two builds that differ only in where the code is: the corpus's
        # m3 -O2 build, and the same sources linked in another order, crashed under QEMU
        # (crash_case is 0 without GDB: the bus fault).
        ref = [d for core, flavour, case, d in cases
               if (core, flavour, case) == ("m3", "O2-nofp", "bus")][0]
        moved_dir = os.path.join(tmp, "moved", "bus")
        os.makedirs(moved_dir)
        moved_elf = os.path.join(tmp, "moved", "fw.elf")
        top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        src = os.path.join(top, "tests", "firmware", "src")
        subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-O2",
                        "-fomit-frame-pointer", "-fno-unwind-tables",
                        "-fno-asynchronous-unwind-tables", "-g", "-ffreestanding", "-nostdlib",
                        "-L" + src, "-Wl,--build-id=sha1", "-T", os.path.join(src, "mps2.ld"),
                        os.path.join(src, "start.S"), os.path.join(src, "cases.c"),
                        os.path.join(src, "crash.c"), "-lgcc", "-o", moved_elf],
                       check=True, cwd=top)
        subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic", "-monitor", "none",
                        "-serial", "none", "-icount", "shift=0,align=off,sleep=off",
                        "-semihosting-config", "enable=on,target=native", "-kernel", moved_elf],
                       cwd=moved_dir, capture_output=True, timeout=60)
        both = reports(run(cw, ["--json", "--symbols", flat, os.path.join(ref, "core.elf")])
                       .stdout)
        both.update(reports(run(cw, ["--json", moved_elf, os.path.join(moved_dir, "core.elf")])
                            .stdout))
        pair = list(both.values())
        pair_file = os.path.join(tmp, "pair.jsonl")
        with open(pair_file, "w") as fh:
            fh.write("".join(json.dumps(j) + "\n" for j in pair))
        p = subprocess.run([cw, "summary", "--json", pair_file], capture_output=True, text=True)
        s = json.loads(p.stdout) if p.returncode == 0 else {"groups": []}
        fault_pcs = [j["frames"][j["fault_frame"]]["pc"] for j in pair if "frames" in j]
        ktap.note("fault pcs %s, build-ids %s, groups %s" % (
            fault_pcs, [j["dump"]["build_id"] for j in pair],
            [(g["signature"], g["count"]) for g in s["groups"]]))
        ktap.result(len(pair) == 2 and len(set(fault_pcs)) == 2 and len(s["groups"]) == 1 and
                    len({b["build_id"] for b in s["groups"][0]["builds"]}) == 2,
                    "signature_stable_across_builds_with_code_moved")
    finally:
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return ktap.done()


if __name__ == "__main__":
    sys.exit(main())
