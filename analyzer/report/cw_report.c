// SPDX-License-Identifier: GPL-2.0
/*
 * cw_report.c - the report: readable text, or JSON (schema in
 * Documentation/crashwalk.rst, "version" bumps on incompatible changes) on
 * one line per dump, so a batch run over many dumps is a JSON-lines stream;
 * and the crash signature that groups dumps of the same crash.
 */
#include <string.h>
#include <unistd.h>

#include "../../lib/user/fw_json.h"
#include "analyze/cw_analyze.h"
#include "decode/cw_exc.h"
#include "report/cw_report.h"

/* FNV-1a over the fault class and the function names from the faulting frame out. */
static uint64_t signature(const struct cw_dump *d, const struct cw_backtrace *bt,
			  const struct cw_fault *f)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int i;
	const char *p;

	for (p = f->cls; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = cw_fault_frame(d->context, bt); i < bt->nr; i++) {
		const char *name = bt->frames[i].func ? bt->frames[i].func->name : "?";

		h = (h ^ '/') * 0x100000001b3ull;
		for (p = name; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	}
	return h;
}

/* The engine's unwinders in the order it tries them: how provenance lists them. */
static const enum cw_method engine_order[] = {
	CW_M_CFI, CW_M_EHABI, CW_M_PROLOGUE, CW_M_FP, CW_M_SCAN,
};

/* Print the names of the unwinders in mask, each after sep (after first for the first). */
static void method_list(FILE *out, unsigned int mask, const char *first, const char *sep,
			const char *quote)
{
	unsigned int k, n = 0;

	for (k = 0; k < ARRAY_SIZE(engine_order); k++)
		if (mask & (1u << engine_order[k]))
			fprintf(out, "%s%s%s%s", n++ ? sep : first, quote,
				cw_method_name(engine_order[k]), quote);
}

/* A source path as the user asked to see it (struct cw_report_opts); NULL stays NULL. */
static const char *shown_path(const struct cw_report_opts *o, const char *file, char *buf,
			      size_t len)
{
	unsigned int k;

	if (!file)
		return NULL;
	for (k = 0; k < o->nr_path_map; k++) {
		const char *m = o->path_map[k], *eq = strchr(m, '=');
		size_t n = (size_t)(eq - m);

		/* OLD matches whole directories only: /src is not a prefix of /srcfoo. */
		if (!strncmp(file, m, n) && (file[n] == '/' || !file[n] || m[n - 1] == '/')) {
			snprintf(buf, len, "%s%s", eq + 1, file + n);
			file = buf;
			break;
		}
	}
	if (o->strip_path && strrchr(file, '/'))
		file = strrchr(file, '/') + 1;
	return file;
}

/* The registers a frame shows (--frame-regs): the core ones, as GDB's info registers lists them. */
static const enum cw_reg frame_reg_order[] = {
	CW_R0, CW_R1, CW_R2, CW_R3, CW_R4, CW_R5, CW_R6, CW_R7, CW_R8, CW_R9, CW_R10, CW_R11,
	CW_R12, CW_SP, CW_LR, CW_PC, CW_XPSR,
};

/* {"r4": N, ...}: the known ones only, as the report's own "registers". */
static void json_frame_regs(FILE *out, const struct cw_regs *regs)
{
	unsigned int k, n = 0;

	fputs(", \"registers\": {", out);
	for (k = 0; k < ARRAY_SIZE(frame_reg_order); k++)
		if (cw_reg_ok(regs, frame_reg_order[k]))
			fprintf(out, "%s\"%s\": %u", n++ ? ", " : "", cw_reg_name(frame_reg_order[k]),
				regs->r[frame_reg_order[k]]);
	fputc('}', out);
}

/* Four a line under the frame, the unknown ones left out, as a caller's r0-r3 are. */
static void text_frame_regs(FILE *out, const struct cw_regs *regs, const char *indent)
{
	unsigned int k, n = 0;

	for (k = 0; k < ARRAY_SIZE(frame_reg_order); k++) {
		enum cw_reg r = frame_reg_order[k];

		if (!cw_reg_ok(regs, r))
			continue;
		if (n++ % 4)
			fputs("  ", out);
		else
			fprintf(out, "%s%s      ", n > 1 ? "\n" : "", indent);
		fprintf(out, "%-4s 0x%08x", cw_reg_name(r), regs->r[r]);
	}
	if (n)
		fputc('\n', out);
}

/* searched: the frame is the one a search found, or above it: its place rests on the search. */
static void json_frame(FILE *out, const struct cw_frame *f, unsigned int i, int searched,
		       const struct cw_report_opts *o)
{
	char path[CW_SHOWN_PATH_MAX];
	unsigned int k;

	fprintf(out, "%s{\"index\": %u, \"pc\": %u, \"sp\": %u, \"function\": ", i ? ", " : "",
		i, f->pc, f->sp);
	fw_json_str(out, f->func ? f->func->name : NULL, 0);
	fprintf(out, ", \"offset\": %u, \"file\": ", f->func ? f->pc - f->func->addr : 0);
	fw_json_str(out, f->has_src ? shown_path(o, f->src.file, path, sizeof(path)) : NULL,
		    0);
	fprintf(out, ", \"line\": %d, \"method\": \"%s\", \"confidence\": %d, "
		"\"exception\": %s, \"exc_return\": %u, \"return_address\": %s, "
		"\"indirect\": %s, \"tailcall\": %s, \"fallback\": %s, \"agreed\": [",
		f->has_src ? f->src.line : 0, cw_method_name(f->method), f->confidence,
		f->flags & CW_FRAME_EXCEPTION ? "true" : "false", f->exc_return,
		f->flags & CW_FRAME_RETURN_ADDR ? "true" : "false",
		f->flags & CW_FRAME_INDIRECT ? "true" : "false",
		f->flags & CW_FRAME_TAILCALL ? "true" : "false",
		f->flags & CW_FRAME_FALLBACK ? "true" : "false");
	method_list(out, f->agreed, "", ", ", "\"");
	fputs("], \"disagreed\": [", out);
	method_list(out, f->disagreed, "", ", ", "\"");
	fputs("], \"proposed\": [", out);
	for (k = 0; k < f->nr_proposed; k++) {
		const struct cw_proposal *p = &f->proposed[k];

		fprintf(out, "%s{\"method\": \"%s\", \"pc\": %u, \"sp\": %u, \"function\": ",
			k ? ", " : "", cw_method_name(p->method), p->pc, p->sp);
		fw_json_str(out, p->func ? p->func->name : NULL, 0);
		fprintf(out, ", \"offset\": %u}", p->func ? p->pc - p->func->addr : 0);
	}
	fprintf(out, "], \"provenance\": \"%s\"", searched ? "searched" : "dump");
	if (o->frame_regs)
		json_frame_regs(out, &f->regs);
	if (f->flags & CW_FRAME_LOST)
		fputs(", \"lost\": true", out);
	if (f->flags & CW_FRAME_FNC_RETURN)
		fputs(", \"secure_call\": true", out);
	if (f->flags & (CW_FRAME_FP_LAZY | CW_FRAME_FP_STACKED | CW_FRAME_FP_UNKNOWN))
		fprintf(out, ", \"fp_state\": \"%s\"",
			f->flags & CW_FRAME_FP_LAZY ? "lazy" :
			f->flags & CW_FRAME_FP_STACKED ? "stacked" : "unknown");
	fputs(", \"inlined\": [", out);
	for (k = 0; k < f->nr_inl; k++) {
		fputs(k ? ", {\"function\": " : "{\"function\": ", out);
		fw_json_str(out, f->inl[k].func, 0);
		fputs(", \"file\": ", out);
		fw_json_str(out, shown_path(o, f->inl[k].src.file, path, sizeof(path)), 0);
		fprintf(out, ", \"line\": %d}", f->inl[k].src.line);
	}
	fputs("]}", out);
}

/* The "frames" and "stop" members, for the crash and for each thread alike. */
static void json_frames(FILE *out, const struct cw_backtrace *bt,
			const struct cw_report_opts *o)
{
	unsigned int i;
	int searched = 0;

	fputs("\"frames\": [", out);
	for (i = 0; i < bt->nr; i++) {
		searched |= !!(bt->frames[i].flags & CW_FRAME_SEARCHED);
		json_frame(out, &bt->frames[i], i, searched, o);
	}
	fprintf(out, "], \"stop\": {\"reason\": \"%s\", \"detail\": ", cw_stop_name(bt->stop));
	fw_json_str(out, bt->stop_detail, 0);
	fputc('}', out);
}

/* The "search" member: null, or how the frame search for a missing stack pointer went. */
static void search_json(FILE *out, const struct cw_search *s)
{
	if (!s->ran) {
		fputs("\"search\": null", out);
		return;
	}
	fprintf(out, "\"search\": {\"register\": \"%s\", \"found\": %s, \"at\": %u, "
		"\"stack\": {\"start\": %u, \"end\": %u, \"bound\": \"%s\"}, "
		"\"candidates\": %u, \"tried\": %u, \"complete\": %u, \"other\": ",
		cw_reg_name(s->reg), s->found ? "true" : "false", s->at, s->lo, s->hi,
		cw_search_bound_name(s->bound), s->candidates, s->tried, s->complete);
	if (s->have_other)
		fprintf(out, "%u", s->other);
	else
		fputs("null", out);
	fprintf(out, ", \"truncated\": %s, \"stale\": %s, \"confidence\": %d}",
		s->truncated ? "true" : "false", s->stale ? "true" : "false", s->confidence);
}

static void search_text(FILE *out, const struct cw_search *s)
{
	if (!s->ran)
		return;
	if (!s->found) {
		fprintf(out, "search: %s not in the dump; no exception frame in RAM yields a complete "
			"chain (%u candidate%s)\n", cw_reg_name(s->reg), s->candidates,
			cw_plural(s->candidates));
		return;
	}
	fprintf(out, "search: %s not in the dump; exception frame found at 0x%08x in %s "
		"0x%08x-0x%08x (%u candidate%s, %u tried, %u with a complete chain), confidence "
		"%d%%\n", cw_reg_name(s->reg), s->at, cw_search_bound_name(s->bound), s->lo, s->hi,
		s->candidates, cw_plural(s->candidates), s->tried, s->complete, s->confidence);
	if (s->have_other)
		fprintf(out, "search: the candidate at 0x%08x also yields a complete chain; the "
			"dump cannot tell which is live (give the value with --sp if it is known)\n",
			s->other);
	if (s->truncated)
		fprintf(out, "search: more candidates than trial unwinds; the rest were not tried\n");
	if (s->stale)
		fprintf(out, "search: the only complete candidate is the frame the kernel saved at "
			"the running thread's last switch: live only if the fault hit at that very sp "
			"(give the value with --sp if it is known)\n");
}

/* The "threads" member of the report object (schema in Documentation/crashwalk.rst). */
/* Why a thread's stack is reported overflowed, in the order of its CW_OVF_* bits. */
static const char *const overflow_reasons[] = {
	"sp-outside-stack", "watermark-reached", "psplim", "stack-limit",
};

static void overflow_names(FILE *out, uint32_t o, const char *first, const char *sep,
			   const char *last)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(overflow_reasons); i++)
		if (o & (1u << i))
			fprintf(out, "%s%s%s", n++ ? sep : first, overflow_reasons[i], last);
}

static void threads_json(FILE *out, const struct cw_rtos *r, const struct cw_report_opts *o)
{
	unsigned int i;

	fprintf(out, "\"rtos\": \"%s\", \"rtos_layout\": ", cw_rtos_name(r ? r->kind : CW_RTOS_NONE));
	fputs(!r || !r->nr ? "null" : r->layout_dwarf ? "\"dwarf\"" : "\"defaults\"", out);
	fputs(", \"threads\": [", out);
	for (i = 0; r && i < r->nr; i++) {
		const struct cw_thread *th = &r->threads[i];

		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		fw_json_str(out, th->name, 0);
		fprintf(out, ", \"tcb\": %u, \"state\": \"%s\", \"kernel_state\": ", th->tcb,
			cw_thread_state_name(th->state));
		fw_json_str(out, th->kernel_state[0] ? th->kernel_state : NULL, 0);
		fputs(", \"waits_on\": ", out);
		fw_json_str(out, th->waits_on[0] ? th->waits_on : NULL, 0);
		fprintf(out, ", \"priority\": %d, \"current\": %s, \"layout\": ", th->priority,
			th->current ? "true" : "false");
		fw_json_str(out, th->layout, 0);
		fprintf(out, ", \"exc_return\": %u, \"fp_frame\": %s, \"sp\": ", th->exc_return,
			cw_exc_return_fp_frame(th->exc_return) ? "true" : "false");
		if (th->have_regs)
			fprintf(out, "%u", th->regs.r[CW_SP]);
		else
			fputs("null", out);
		fputs(", \"stack\": {", out);
		if (th->have_stack)
			fprintf(out, "\"start\": %u, ", th->stack_lo);
		if (th->stack_size)
			fprintf(out, "\"size\": %u, ", th->stack_size);
		if (th->have_psplim)
			fprintf(out, "\"psplim\": %u, ", th->psplim);
		if (th->have_use) {
			fprintf(out, "\"untouched\": %u, ", th->stack_untouched);
			if (th->stack_size)
				fprintf(out, "\"used\": %u, ", th->stack_size - th->stack_untouched);
		}
		fprintf(out, "\"overflow\": %s, \"overflow_reasons\": [",
			th->overflow ? "true" : "false");
		overflow_names(out, th->overflow, "\"", ", \"", "\"");
		fputs("]}, \"problem\": ", out);
		fw_json_str(out, th->problem[0] ? th->problem : NULL, 0);
		fputs(", ", out);
		json_frames(out, &th->bt, o);
		fputc('}', out);
	}
	fputs("], \"rtos_warnings\": [", out);
	for (i = 0; r && i < r->nr_warnings; i++) {
		fputs(i ? ", " : "", out);
		fw_json_str(out, r->warnings[i], 0);
	}
	fputc(']', out);
}

static void json_build_id(FILE *out, const uint8_t *id, uint32_t len)
{
	char hex[2 * CW_MAX_BUILD_ID + 1];

	cw_build_id_hex(id, len, hex, sizeof(hex));
	fw_json_str(out, len ? hex : NULL, 0);
}

/* The firmware the dump was analyzed against: its file and build-id; null when not known. */
static void json_firmware(FILE *out, const struct cw_image *img)
{
	const uint8_t *id;
	uint32_t len;

	if (!img) {
		fputs("null", out);
		return;
	}
	len = cw_image_build_id(img, &id);
	fputs("{\"path\": ", out);
	fw_json_str(out, cw_image_path(img), 0);
	fputs(", \"build_id\": ", out);
	json_build_id(out, id, len);
	fputc('}', out);
}

/* A Zephyr dump's reason code and Zephyr's name for it; null for the other formats. */
static void json_zephyr_reason(FILE *out, uint32_t reason)
{
	if (reason == CW_NO_ZEPHYR_REASON) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"code\": %u, \"name\": ", reason);
	fw_json_str(out, cw_fault_zephyr_reason_name(reason), 0);
	fputc('}', out);
}

static void report_json(FILE *out, const struct cw_image *img, const struct cw_dump *d,
			const struct cw_backtrace *bt, const struct cw_fault *f,
			const struct cw_rtos *rtos, const struct cw_match *m,
			const struct cw_report_opts *o)
{
	unsigned int i, first = 1;

	fprintf(out, "{\"schema\": \"crashwalk\", \"version\": %d, \"dump\": {\"path\": ",
		CW_JSON_SCHEMA_VERSION);
	fw_json_str(out, d->path, 0);
	fprintf(out, ", \"format\": \"%s\", \"context\": \"%s\", \"warning\": ",
		cw_dump_format_name(d->format),
		d->context == CW_CTX_HANDLER_ENTRY ? "handler-entry" :
		d->context == CW_CTX_MEMORY_ONLY ? "memory-only" : "pre-exception");
	fw_json_str(out, d->warning, 0);
	fputs(", \"mismatch\": [", out);
	for (i = 0; m && i < m->nr; i++) {
		fputs(i ? ", " : "", out);
		fw_json_str(out, m->lines[i], 0);
	}
	fputs("], \"gaps\": [", out);
	for (i = 0; i < d->nr_gaps; i++) {
		fprintf(out, "%s{\"section\": ", i ? ", " : "");
		fw_json_str(out, d->gaps[i].section, 0);
		fprintf(out, ", \"start\": %u, \"end\": %u, \"contents\": \"%s\"}",
			d->gaps[i].lo, d->gaps[i].hi,
			d->gaps[i].initial ? "initial-values" : "unknown");
	}
	fputs("], \"build_id\": ", out);
	json_build_id(out, d->build_id, d->build_id_len);
	fputs(", \"build_id_at\": ", out);
	if (d->build_id_len && d->build_id_at)
		fprintf(out, "%u", d->build_id_at);
	else
		fputs("null", out);
	fputs("}, \"firmware\": ", out);
	json_firmware(out, img);
	fputs(", \"registers\": {", out);
	for (i = 0; i < CW_NR_REGS; i++) {
		if (!cw_reg_ok(&d->regs, (enum cw_reg)i))
			continue;
		fprintf(out, "%s\"%s\": %u", first ? "" : ", ", cw_reg_name((enum cw_reg)i), d->regs.r[i]);
		first = 0;
	}
	fprintf(out, "}, \"fault\": {\"class\": \"%s\", \"have_scb\": %s, \"cfsr\": %u, "
		"\"hfsr\": %u, \"dfsr\": %u, \"mmfar\": %u, \"bfar\": %u, \"mmfar_valid\": %s, "
		"\"bfar_valid\": %s, \"sfsr\": %u, \"sfar\": %u, \"sfar_valid\": %s, "
		"\"instruction\": ", f->cls, f->have_scb ? "true" : "false",
		f->cfsr, f->hfsr, f->dfsr, f->mmfar, f->bfar,
		f->cfsr & CW_CFSR_MMARVALID ? "true" : "false", f->cfsr & CW_CFSR_BFARVALID ? "true" : "false",
		f->sfsr, f->sfar, f->sfsr & CW_SFSR_SFARVALID ? "true" : "false");
	fw_json_str(out, f->insn[0] ? f->insn : NULL, 0);
	fputs(", \"explanation\": [", out);
	for (i = 0; i < f->nr; i++) {
		fputs(i ? ", " : "", out);
		fw_json_str(out, f->lines[i], 0);
	}
	fputs("], \"zephyr_reason\": ", out);
	json_zephyr_reason(out, f->zephyr_reason);
	fprintf(out, "}, \"fault_frame\": %u, ", cw_fault_frame(d->context, bt));
	json_frames(out, bt, o);
	fputs(", ", out);
	search_json(out, &bt->search);
	fputs(", ", out);
	threads_json(out, rtos, o);
	fprintf(out, ", \"signature\": \"%016llx\"}\n",
		(unsigned long long)signature(d, bt, f));
}

/* One frame; a thread's frames are indented under the thread. */
/* 0 is no EXC_RETURN: a frame found in RAM without the handler's lr. */
static const char *exc_return_text(uint32_t exc_return, char *buf, size_t len)
{
	if (!exc_return)
		return "unknown";
	snprintf(buf, len, "0x%08x", exc_return);
	return buf;
}

/*
 * What the unwinders that disagreed with the caller taken (f) proposed
 * instead, a line per caller, naming every unwinder that proposed it. Where
 * the pc is the same, the frames differ in sp alone (a scan that took a copy
 * of the return address from another slot), said so.
 */
static void proposals_text(FILE *out, const struct cw_frame *f, const char *indent)
{
	const struct cw_proposal *p, *q;
	unsigned int k, j, done = 0;

	for (k = 0; k < f->nr_proposed; k++) {
		if (done & (1u << k))
			continue;
		p = &f->proposed[k];
		fprintf(out, "%s     ", indent);
		for (j = k; j < f->nr_proposed; j++) {
			q = &f->proposed[j];
			if (q->pc == p->pc && q->sp == p->sp) {
				fprintf(out, " %s", cw_method_name(q->method));
				done |= 1u << j;
			}
		}
		fputs(" proposed ", out);
		if (p->pc == f->pc)
			fprintf(out, "the same pc, sp 0x%08x where this frame's is 0x%08x\n", p->sp,
				f->sp);
		else if (cw_is_exc_return(p->pc))
			fprintf(out, "EXC_RETURN 0x%08x, sp 0x%08x\n", p->pc, p->sp);
		else if (p->func)
			fprintf(out, "0x%08x %s+0x%x, sp 0x%08x\n", p->pc, p->func->name,
				p->pc - p->func->addr, p->sp);
		else
			fprintf(out, "0x%08x ??, sp 0x%08x\n", p->pc, p->sp);
	}
}

static void text_frame(FILE *out, const struct cw_frame *f, unsigned int i,
		       const struct cw_report_opts *o, const char *indent)
{
	char path[CW_SHOWN_PATH_MAX], exc[16];
	unsigned int k;

	if (f->flags & CW_FRAME_FNC_RETURN)
		fprintf(out, "%s   --- Secure caller of Non-secure code (FNC_RETURN 0x%08x) ---\n",
			indent, f->exc_return);
	else if (f->flags & CW_FRAME_EXCEPTION)
		fprintf(out, "%s   --- exception frame (EXC_RETURN %s)%s%s ---\n", indent,
			exc_return_text(f->exc_return, exc, sizeof(exc)),
			f->flags & CW_FRAME_FP_LAZY ? ", FP state lazy: s0-s15 never stacked" :
			f->flags & CW_FRAME_FP_STACKED ? ", FP state stacked" :
			f->flags & CW_FRAME_FP_UNKNOWN ? ", FP state stacked or lazy (no FPCCR in "
			"the dump)" : "",
			f->flags & CW_FRAME_SEARCHED ? ", searched: its stack pointer is not in the "
			"dump" : "");
	if (f->flags & CW_FRAME_LOST)
		fprintf(out, "%s   (the frame was never stacked: pc and lr lost; the function is "
			"the target of the call below)\n", indent);
	fprintf(out, "%s#%-2u 0x%08x %s%s%s", indent, i, f->pc, o->color ? "\033[1m" : "",
		f->func ? f->func->name : "??", o->color ? "\033[0m" : "");
	if (f->func)
		fprintf(out, "+0x%x", f->pc - f->func->addr);
	if (f->has_src)
		fprintf(out, " at %s:%d", shown_path(o, f->src.file, path, sizeof(path)),
			f->src.line);
	fprintf(out, "  [%s %d%%%s%s%s", cw_method_name(f->method), f->confidence,
		f->flags & CW_FRAME_INDIRECT ? ", indirect call" : "",
		f->flags & CW_FRAME_TAILCALL ? ", via tail call" : "",
		f->flags & CW_FRAME_FALLBACK ? ", table does not apply here" : "");
	method_list(out, f->agreed, ", agreed: ", " ", "");
	method_list(out, f->disagreed, ", disagreed: ", " ", "");
	fputs("]\n", out);
	if (o->proposals)
		proposals_text(out, f, indent);
	for (k = 0; k < f->nr_inl; k++)
		fprintf(out, "%s      inlined: %s at %s:%d\n", indent, f->inl[k].func,
			f->inl[k].src.file ? shown_path(o, f->inl[k].src.file, path, sizeof(path)) :
			"??", f->inl[k].src.line);
	if (o->frame_regs)
		text_frame_regs(out, &f->regs, indent);
}



/*
 * A walk's "stopped:" line. Every thread of an RTOS usually stops for the same
 * reason, in the same words (task_entry: the return address every task is given):
 * the same explanation as the last one printed in this report (seen) is named,
 * not repeated.
 */
static void stop_text(FILE *out, const char *indent, const struct cw_backtrace *bt,
		      const struct cw_backtrace **seen)
{
	fprintf(out, "%sstopped: %s", indent, cw_stop_name(bt->stop));
	if (!bt->stop_detail[0]) {
		fputc('\n', out);
		return;
	}
	if (*seen && (*seen)->stop == bt->stop && !strcmp((*seen)->stop_detail, bt->stop_detail)) {
		fputs(" (as above)\n", out);
		return;
	}
	fprintf(out, ": %s\n", bt->stop_detail);
	*seen = bt;
}

static void threads_text(FILE *out, const struct cw_rtos *r, const struct cw_report_opts *o,
			 const struct cw_backtrace **seen)
{
	unsigned int i, k;

	if (!r)
		return;
	if (r->kind == CW_RTOS_NONE) {
		for (i = 0; i < r->nr_warnings; i++)
			fprintf(out, "threads: %s\n", r->warnings[i]);
		return;
	}
	fprintf(out, "threads (%s, %u, layout from %s):\n", cw_rtos_name(r->kind), r->nr,
		r->layout_dwarf ? "DWARF" : "defaults");
	for (i = 0; i < r->nr_warnings; i++)
		fprintf(out, "  warning: %s\n", r->warnings[i]);
	if (r->unpainted)
		fprintf(out, "  stack use unknown: no stack holds the kernel's fill pattern (stacks "
			"not painted, e.g. Zephyr without CONFIG_INIT_STACKS)\n");
	for (i = 0; i < r->nr; i++) {
		const struct cw_thread *th = &r->threads[i];

		fprintf(out, "%c %-16s tcb 0x%08x  %-9s prio %d", th->current ? '*' : ' ',
			th->name[0] ? th->name : "?", th->tcb, cw_thread_state_name(th->state),
			th->priority);
		if (th->have_stack && th->stack_size && th->have_use)
			fprintf(out, "  stack 0x%08x-0x%08x used %u/%u", th->stack_lo, th->stack_hi,
				th->stack_size - th->stack_untouched, th->stack_size);
		else if (th->have_stack && th->have_use)
			fprintf(out, "  stack from 0x%08x, %u never used", th->stack_lo,
				th->stack_untouched);
		if (th->layout)
			fprintf(out, "  [%s%s]", th->layout,
				cw_exc_return_fp_frame(th->exc_return) ? ", FP frame" : "");
		fputc('\n', out);
		if (th->waits_on[0] || th->kernel_state[0])
			fprintf(out, "    %s%s%s\n", th->kernel_state, th->waits_on[0] ? ": waits on " : "",
				th->waits_on);
		if (th->overflow) {
			fputs("    STACK OVERFLOW:", out);
			overflow_names(out, th->overflow, " ", " ", "");
			fputc('\n', out);
		}
		if (th->problem[0])
			fprintf(out, "    no backtrace: %s\n", th->problem);
		for (k = 0; k < th->bt.nr; k++)
			text_frame(out, &th->bt.frames[k], k, o, "    ");
		if (th->bt.nr)
			stop_text(out, "    ", &th->bt, seen);
	}
}

static void report_text(FILE *out, const struct cw_dump *d, const struct cw_backtrace *bt,
			const struct cw_fault *f, const struct cw_rtos *rtos, const struct cw_match *m,
			const struct cw_report_opts *o)
{
	unsigned int i, ff = cw_fault_frame(d->context, bt);
	const struct cw_backtrace *seen = NULL;

	fprintf(out, "crashwalk: %s (%s)\n", d->path, cw_dump_format_name(d->format));
	if (d->warning)
		fprintf(out, "warning: %s\n", d->warning);
	for (i = 0; m && i < m->nr; i++)
		fprintf(out, "mismatch: %s\n", m->lines[i]);
	for (i = 0; i < d->nr_gaps; i++)
		fprintf(out, "gap: %s 0x%08x-0x%08x (%u byte%s) not in the dump: %s\n",
			d->gaps[i].section, d->gaps[i].lo, d->gaps[i].hi,
			d->gaps[i].hi - d->gaps[i].lo, cw_plural(d->gaps[i].hi - d->gaps[i].lo),
			d->gaps[i].initial ? "the image's initial values used" : "contents unknown");
	fprintf(out, "fault: %s", f->cls);
	if (ff < bt->nr)
		fprintf(out, " at 0x%08x%s%s", bt->frames[ff].pc, bt->frames[ff].func ? " in " : "",
			bt->frames[ff].func ? bt->frames[ff].func->name : "");
	fputc('\n', out);
	if (f->insn[0])
		fprintf(out, "  instruction: %s\n", f->insn);
	if (f->have_scb)
		fprintf(out, "  CFSR 0x%08x  HFSR 0x%08x  MMFAR 0x%08x%s  BFAR 0x%08x%s\n", f->cfsr,
			f->hfsr, f->mmfar, f->cfsr & CW_CFSR_MMARVALID ? " (valid)" : "", f->bfar,
			f->cfsr & CW_CFSR_BFARVALID ? " (valid)" : "");
	if (f->have_sfsr)
		fprintf(out, "  SFSR 0x%08x  SFAR 0x%08x%s\n", f->sfsr, f->sfar,
			f->sfsr & CW_SFSR_SFARVALID ? " (valid)" : "");
	for (i = 0; i < f->nr; i++)
		fprintf(out, "  %s\n", f->lines[i]);
	search_text(out, &bt->search);
	fputs("backtrace:\n", out);
	for (i = 0; i < bt->nr; i++)
		text_frame(out, &bt->frames[i], i, o, "");
	stop_text(out, "", bt, &seen);
	fprintf(out, "signature: %016llx\n", (unsigned long long)signature(d, bt, f));
	threads_text(out, rtos, o, &seen);
}

void cw_report_crash(FILE *out, const struct cw_report_opts *o, const struct cw_dump *dump,
		     const struct cw_backtrace *bt, const struct cw_fault *f, const struct cw_rtos *rtos,
		     const struct cw_match *match)
{
	if (o->json)
		report_json(out, NULL, dump, bt, f, rtos, match, o);
	else
		report_text(out, dump, bt, f, rtos, match, o);
}

void cw_report(FILE *out, const struct cw_report_opts *o, const struct cw_analysis *a)
{
	if (o->json)
		report_json(out, a->img, &a->dump, &a->bt, &a->fault, &a->rtos, &a->match, o);
	else
		report_text(out, &a->dump, &a->bt, &a->fault, &a->rtos, &a->match, o);
}

/*
 * A dump that could not be analyzed: in JSON, an object of its own in the
 * stream, with the build-id it names when it could be read (a is not NULL).
 */
void cw_report_error(FILE *out, const struct cw_report_opts *o, const char *path,
		     const struct cw_analysis *a, const char *msg)
{
	if (!o->json)
		return;
	fprintf(out, "{\"schema\": \"crashwalk\", \"version\": %d, \"dump\": {\"path\": ",
		CW_JSON_SCHEMA_VERSION);
	fw_json_str(out, path, 0);
	fputs(", \"build_id\": ", out);
	json_build_id(out, a ? a->dump.build_id : NULL, a ? a->dump.build_id_len : 0);
	fputs("}, \"error\": ", out);
	fw_json_str(out, msg, 0);
	fputs("}\n", out);
}
