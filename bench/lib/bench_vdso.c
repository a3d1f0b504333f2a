/*
 * bench_vdso.c - finds the kernel's vDSO getrandom (Linux 6.11+ on x86-64,
 * 6.12+ on arm64 and others) for the benchmark's "vdso" source.
 *
 * Two ways, the second when the first fails: the dynamic loader's own entry
 * for the vDSO (dlopen("linux-vdso.so.1", RTLD_NOLOAD) + dlvsym), and a walk
 * of the vDSO's ELF image found through getauxval(AT_SYSINFO_EHDR) (dynamic
 * section, symbol table sized from DT_HASH or DT_GNU_HASH, version checked
 * through DT_VERSYM/DT_VERDEF).  Then the vDSO is asked for its state
 * parameters: fn(NULL, 0, 0, &params, ~0UL) fills struct
 * vgetrandom_opaque_params (include/uapi/linux/random.h, Linux 6.11:
 * u32 size_of_opaque_state, mmap_prot, mmap_flags, reserved[13]); every
 * thread then maps its own state with that prot and those flags.
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "bench.h"

/* Linux's struct vgetrandom_opaque_params (uapi/linux/random.h, 6.11). */
struct bench_vgetrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

#if defined(__aarch64__)
#define VDSO_NAME "__kernel_getrandom"
#define VDSO_VERSION "LINUX_2.6.39"
#else
#define VDSO_NAME "__vdso_getrandom"
#define VDSO_VERSION "LINUX_2.6"
#endif

static void *vdso_by_dlvsym(void)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return NULL;
	void *p = dlvsym(h, VDSO_NAME, VDSO_VERSION);
	dlclose(h);
	return p;
}

/* Symbols in a GNU hash table: one past the highest index any chain reaches. */
static size_t gnu_hash_nsyms(const uint32_t *gh)
{
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
	const uint32_t *buckets = gh + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t last = 0;

	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return (size_t)last + 1;
}

static void *vdso_by_auxv(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return NULL;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	uintptr_t bias = 0;
	int have_load = 0;
	const ElfW(Dyn) *dyn = NULL;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			bias = base + ph[i].p_offset - ph[i].p_vaddr;
			have_load = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)(base + ph[i].p_offset);
		}
	}
	if (!have_load || !dyn)
		return NULL;

	const char *strtab = NULL;
	const ElfW(Sym) *symtab = NULL;
	const uint32_t *hash = NULL, *gnuhash = NULL;
	const ElfW(Versym) *versym = NULL;
	const ElfW(Verdef) *verdef = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t p = bias + dyn->d_un.d_ptr;
		switch (dyn->d_tag) {
		case DT_STRTAB: strtab = (const char *)p; break;
		case DT_SYMTAB: symtab = (const ElfW(Sym) *)p; break;
		case DT_HASH: hash = (const uint32_t *)p; break;
		case DT_GNU_HASH: gnuhash = (const uint32_t *)p; break;
		case DT_VERSYM: versym = (const ElfW(Versym) *)p; break;
		case DT_VERDEF: verdef = (const ElfW(Verdef) *)p; break;
		default: break;
		}
	}
	if (!strtab || !symtab || (!hash && !gnuhash))
		return NULL;
	size_t nsyms = hash ? hash[1] : gnu_hash_nsyms(gnuhash);

	for (size_t i = 0; i < nsyms; i++) {
		const ElfW(Sym) *s = &symtab[i];
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF)
			continue;
		if (strcmp(strtab + s->st_name, VDSO_NAME) != 0)
			continue;
		if (versym && verdef) {
			unsigned want = versym[i] & 0x7fff;
			const ElfW(Verdef) *d = verdef;
			int ok = 0;
			for (;;) {
				if (!(d->vd_flags & VER_FLG_BASE) && d->vd_ndx == want) {
					const ElfW(Verdaux) *a =
						(const ElfW(Verdaux) *)((const char *)d + d->vd_aux);
					ok = strcmp(strtab + a->vda_name, VDSO_VERSION) == 0;
					break;
				}
				if (!d->vd_next)
					break;
				d = (const ElfW(Verdef) *)((const char *)d + d->vd_next);
			}
			if (!ok)
				continue;
		}
		return (void *)(bias + s->st_value);
	}
	return NULL;
}

int bench_vdso_find(struct bench_vdso *v, char *why, size_t why_len)
{
	struct bench_vgetrandom_params params;
	void *p = vdso_by_dlvsym();

	memset(v, 0, sizeof(*v));
	v->found_by = "dlvsym";
	if (!p) {
		p = vdso_by_auxv();
		v->found_by = "auxv ELF walk";
	}
	if (!p) {
		snprintf(why, why_len, "the kernel's vDSO has no %s@%s (needs Linux 6.11+)",
			 VDSO_NAME, VDSO_VERSION);
		return -1;
	}
	v->fn = (bench_vgetrandom_fn)p;
	memset(&params, 0, sizeof(params));
	if (v->fn(NULL, 0, 0, &params, ~(size_t)0) != 0 || params.size_of_opaque_state == 0 ||
	    params.size_of_opaque_state > 65536) {
		snprintf(why, why_len, "vDSO getrandom refused the parameter query");
		return -1;
	}
	v->state_size = params.size_of_opaque_state;
	v->mmap_prot = params.mmap_prot;
	v->mmap_flags = params.mmap_flags;
	return 0;
}

void *bench_vdso_lookup_dlvsym(void)
{
	return vdso_by_dlvsym();
}
void *bench_vdso_lookup_auxv(void)
{
	return vdso_by_auxv();
}
