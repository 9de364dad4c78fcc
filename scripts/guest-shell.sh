#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /fw/shell.sh of the guest under scripts/guest.sh -s (make shell): an interactive shell on
# the console, with job control, in /fw/ko beside framewalk.ko; the guest powers off after it.
cd /fw/ko
export HOME=/fw/ko PS1='fw:\w# '
cat <<'MSG'

framewalk board-free shell: an arm64 guest, nothing here is kept.
  /fw/ko          framewalk.ko (insmod framewalk.ko filter=vfs_read depth=16)
  framewalk       the CLI (framewalk --help); trace-cmd and crashwalk too
  /fw/crash       bundled Cortex-M crashes: crashwalk /fw/crash/demo.elf /fw/crash/demo.core
The README's and Documentation/'s examples marked for make shell run here as written,
in order (make check types them and compares what they print); a board's steps (apt,
dpkg, modprobe) do not. exit or Ctrl-D powers off.
MSG
# cttyhack makes the console the shell's controlling terminal: Ctrl-C and jobs work.
setsid cttyhack sh -i
echo 1 >/proc/sys/kernel/printk
poweroff -f
