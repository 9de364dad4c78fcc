// SPDX-License-Identifier: GPL-2.0
/*
 * cw_dwarf_types.c - struct layouts and typed objects from the firmware's
 * DWARF: where the RTOS model finds its kernel objects' fields and stacks.
 */
#include <string.h>

#include "image/cw_image_impl.h"

static int first_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
			void *arg)
{
	(void)user;
	(void)name;
	(void)base;
	*(Dwfl_Module **)arg = mod;
	return DWARF_CB_ABORT;
}

/* The firmware's DWARF, or NULL when it has none. */
static Dwarf *image_dwarf(const struct cw_image *img)
{
	Dwfl_Module *mod = NULL;
	Dwarf_Addr bias;

	if (!img->dwfl || dwfl_getmodules(img->dwfl, first_module, &mod, 0) < 0 || !mod)
		return NULL;
	return dwfl_module_getdwarf(mod, &bias);
}

int cw_image_has_dwarf(const struct cw_image *img)
{
	return image_dwarf(img) != NULL;
}

static int die_is_named(Dwarf_Die *die, const char *name)
{
	const char *n = dwarf_diename(die);

	return n && !strcmp(n, name);
}

/*
 * A struct or enum (tag; or the one behind a typedef) defined, not only
 * declared, at a CU's top level: a struct with its size, an enum with its
 * enumerators.
 */
static int find_type(Dwarf *dw, const char *name, int tag, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dw)
		return -1;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int t = dwarf_tag(&child);

				if ((t == tag || t == DW_TAG_typedef) &&
				    die_is_named(&child, name) &&
				    !dwarf_hasattr(&child, DW_AT_declaration) &&
				    dwarf_peel_type(&child, out) == 0 && dwarf_tag(out) == tag &&
				    (tag == DW_TAG_enumeration_type ? dwarf_haschildren(out) > 0 :
				     dwarf_hasattr(out, DW_AT_byte_size)))
					return 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -1;
}

static int find_struct(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	return find_type(dw, name, DW_TAG_structure_type, out);
}

static int member_type(Dwarf_Die *member, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr(member, DW_AT_type, &a), type) &&
	       dwarf_peel_type(type, type) == 0 ? 0 : -1;
}

static uint32_t member_offset(Dwarf_Die *member)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (dwarf_attr(member, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &v);
	return (uint32_t)v;
}

/* One member of a struct or union, looking into anonymous members as C does. */
static int find_member(Dwarf_Die *agg, const char *name, size_t len, uint32_t *off,
		       Dwarf_Die *type)
{
	Dwarf_Die m, t;

	if (dwarf_child(agg, &m))
		return -1;
	do {
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (n && strlen(n) == len && !strncmp(n, name, len)) {
			*off = member_offset(&m);
			return member_type(&m, type);
		}
		if (!n && !member_type(&m, &t) &&
		    !find_member(&t, name, len, off, type)) {
			*off += member_offset(&m);
			return 0;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -1;
}

/*
 * Offset (and size, when size is not NULL) of a dotted member path such as
 * "callee_saved.psp" in a struct the firmware's DWARF defines.
 */
int cw_image_struct_member(const struct cw_image *img, const char *type, const char *path,
			   uint32_t *off, uint32_t *size)
{
	Dwarf_Die agg, t;
	uint32_t total = 0, o;
	const char *p = path;

	if (find_struct(image_dwarf(img), type, &agg))
		return -1;
	for (;;) {
		size_t len = strcspn(p, ".");

		if (find_member(&agg, p, len, &o, &t))
			return -1;
		total += o;
		if (!p[len])
			break;
		agg = t;
		p += len + 1;
	}
	*off = total;
	if (size) {
		Dwarf_Word sz;

		*size = dwarf_aggregate_size(&t, &sz) == 0 ? (uint32_t)sz : 4;
	}
	return 0;
}

int cw_image_struct_size(const struct cw_image *img, const char *type, uint32_t *size)
{
	Dwarf_Die agg;
	Dwarf_Word sz;

	if (find_struct(image_dwarf(img), type, &agg) || dwarf_aggregate_size(&agg, &sz))
		return -1;
	*size = (uint32_t)sz;
	return 0;
}

/*
 * The values of the named enumerators of enum type (a kernel's state
 * numbers, which its configuration options shift): values[i] for names[i],
 * left as it was for a name the enum lacks. Returns how many were found, -1
 * when the firmware's DWARF has no such enum.
 */
int cw_image_enumerators(const struct cw_image *img, const char *type, const char *const *names,
			 unsigned int n, int64_t *values)
{
	Dwarf_Die e, child;
	Dwarf_Attribute a;
	Dwarf_Sword v;
	unsigned int i;
	int found = 0;

	if (find_type(image_dwarf(img), type, DW_TAG_enumeration_type, &e))
		return -1;
	if (dwarf_child(&e, &child))
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_enumerator ||
		    dwarf_formsdata(dwarf_attr(&child, DW_AT_const_value, &a), &v))
			continue;
		for (i = 0; i < n; i++)
			if (die_is_named(&child, names[i])) {
				values[i] = v;
				found++;
			}
	} while (dwarf_siblingof(&child, &child) == 0);
	return found;
}

/*
 * An array variable's element type, its size and its outer dimension (1 for
 * a one-dimensional array).
 */
static int array_element(Dwarf_Die *var, Dwarf_Die *elem, uint32_t *size, uint32_t *rows)
{
	Dwarf_Die arr, sub;
	Dwarf_Attribute a;
	Dwarf_Word n;
	unsigned int dims = 0;

	/* A definition apart from its declaration has the type on the declaration. */
	if (!dwarf_formref_die(dwarf_attr_integrate(var, DW_AT_type, &a), &arr) ||
	    dwarf_peel_type(&arr, &arr) || dwarf_tag(&arr) != DW_TAG_array_type ||
	    dwarf_aggregate_size(&arr, &n) || !n ||
	    !dwarf_formref_die(dwarf_attr(&arr, DW_AT_type, &a), elem) ||
	    dwarf_peel_type(elem, elem) || dwarf_child(&arr, &sub))
		return -1;
	*size = (uint32_t)n;
	*rows = 1;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (!dims++ && dwarf_attr(&sub, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &n))
			*rows = (uint32_t)n + 1;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	if (dims < 2)
		*rows = 1;
	return 0;
}

/* A variable's name, on its DIE or on the declaration its definition names. */
static const char *var_name(Dwarf_Die *var)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(var, DW_AT_name, &a));
}

/* Where a variable is, when its location is a plain address (DW_OP_addr). */
static int variable_address(Dwarf_Die *var, uint32_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(var, DW_AT_location, &a) || dwarf_getlocation(&a, &expr, &len) ||
	    len != 1 || expr[0].atom != DW_OP_addr)
		return -1;
	*addr = (uint32_t)expr[0].number;
	return 0;
}

/*
 * The variables, at a compilation unit's top level, that are arrays (one- or
 * two-dimensional) of the struct named elem: objects that only their type
 * marks, as Zephyr's stack objects (their output section holds any other
 * no-init data too).
 */
static unsigned int find_objects_of_type(Dwarf *dw, const char *elem, struct cw_typed_object *out,
					 unsigned int max)
{
	Dwarf_Off off = 0, next;
	unsigned int nr = 0;
	size_t hsize;

	while (dw && nr < max && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, var, el;
		uint32_t addr, size, rows;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &var) == 0) {
			do {
				if (dwarf_tag(&var) != DW_TAG_variable || !var_name(&var) ||
				    variable_address(&var, &addr) ||
				    array_element(&var, &el, &size, &rows) ||
				    dwarf_tag(&el) != DW_TAG_structure_type ||
				    !die_is_named(&el, elem))
					continue;
				out[nr++] = (struct cw_typed_object){ var_name(&var), addr,
								      size, rows };
			} while (nr < max && dwarf_siblingof(&var, &var) == 0);
		}
		off = next;
	}
	return nr;
}

/*
 * Those objects, found once per image: the search walks every DIE of the
 * firmware, and a batch asks again for each dump (on a 50 000-function
 * firmware that walk was 20 times the rest of a dump's analysis). Returns
 * how many were stored in out.
 */
unsigned int cw_image_objects_of_type(struct cw_image *img, const char *elem,
				      struct cw_typed_object *out, unsigned int max)
{
	struct cw_typed_cache *c = &img->typed;
	unsigned int nr;

	if (!c->elem || strcmp(c->elem, elem)) {
		c->elem = elem;
		c->nr = find_objects_of_type(image_dwarf(img), elem, c->obj, CW_TYPED_CACHE_MAX);
	}
	nr = c->nr < max ? c->nr : max;
	memcpy(out, c->obj, nr * sizeof(*out));
	return nr;
}
