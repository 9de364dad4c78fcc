# SPDX-License-Identifier: GPL-2.0
# Feature tests against the headers for the version differences in fw_compat.h (and in
# fw_hook.h, fw_recursion.h, fw_recover.h, where a concept differs), included by
# every Kbuild of the project: distributions backport such changes regardless of version
# numbers, so the headers are asked, not LINUX_VERSION_CODE.
# 5.11 brought
# ftrace_regs and trace_recursion.h, 5.13 exported ftrace_free_filter(), 5.16 asm-extable.h,
# 5.11 the task's kretprobe instance list, 6.7 instances' event systems; 6.8 ended the
# graph return stack's array layout; 6.13 brought hrtimer_setup() (and 7.x dropped
# hrtimer_init()) and the exception boundary's metadata frame record; the kretprobe
# trampoline became a BRK (6.12 has it, 6.1 not); 6.4 split the PAC strip of user return
# addresses from the kernel's (ptrauth_strip_user_insn_pac()); 6.14 put fprobe on the
# function graph, its handlers given ftrace_regs.
ccflags-y += $(shell grep -qs 'struct ftrace_ops \*op, struct ftrace_regs \*fregs' \
	$(srctree)/include/linux/ftrace.h && echo -DFW_FTRACE_REGS)
ccflags-y += $(shell test -f $(srctree)/include/linux/trace_recursion.h && \
	echo -DFW_TRACE_RECURSION_H)
ccflags-y += $(shell test -f $(srctree)/arch/arm64/include/asm/asm-extable.h && \
	echo -DFW_ASM_EXTABLE_H)
ccflags-y += $(shell grep -qs '[[:space:]]ftrace_free_filter[[:space:]]' \
	$(objtree)/Module.symvers && echo -DFW_FREE_FILTER_EXPORTED)
ccflags-y += $(shell grep -qs 'kretprobe_instances;' $(srctree)/include/linux/sched.h && \
	echo -DFW_KRETPROBE_TASK_LIST)
ccflags-y += $(shell grep -qs 'trace_array_get_by_name(const char \*name, const char \*systems)' \
	$(srctree)/include/linux/trace.h && echo -DFW_TRACE_ARRAY_SYSTEMS)
ccflags-y += $(shell grep -qs 'struct ftrace_ret_stack[[:space:]]*\*ret_stack;' \
	$(srctree)/include/linux/sched.h && echo -DFW_GRAPH_RET_STACK_ARRAY)
ccflags-y += $(shell grep -qs 'void hrtimer_setup.struct hrtimer' \
	$(srctree)/include/linux/hrtimer.h && echo -DFW_HRTIMER_SETUP)
ccflags-y += $(shell test -f $(srctree)/arch/arm64/include/asm/stacktrace/frame.h && \
	echo -DFW_FRAME_META)
ccflags-y += $(shell grep -qs 'KRETPROBES_BRK_IMM' \
	$(srctree)/arch/arm64/include/asm/brk-imm.h && echo -DFW_KRETPROBE_BRK)
ccflags-y += $(shell grep -qs 'define ptrauth_strip_user_insn_pac' \
	$(srctree)/arch/arm64/include/asm/compiler.h && echo -DFW_PTRAUTH_STRIP_USER)
ccflags-y += $(shell grep -qs 'unsigned long ret_ip, struct ftrace_regs \*regs,' \
	$(srctree)/include/linux/fprobe.h && echo -DFW_FPROBE_FREGS)
