// SPDX-License-Identifier: GPL-2.0
#include "backends/emulated/l1_blob.h"

#include <stdlib.h>
#include <string.h>

#include "util/errbuf.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

enum blob_kind { BLOB_VARIANT = 1, BLOB_RESULT = 2, BLOB_HOST = 3, BLOB_EXEC = 4 };

/* Whose bytes these are: a plerig with other structures refuses them. */
struct blob_header {
	char magic[8]; /* "plerigL1" */
	char version[24];
	uint32_t kind;
	uint32_t sizes[4]; /* the structures the blob holds, as this build lays them out */
};

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case BLOB_VARIANT:
		return "variant";
	case BLOB_RESULT:
		return "result";
	case BLOB_HOST:
		return "host identity";
	case BLOB_EXEC:
		return "command";
	}
	return "unknown";
}

static struct blob_header header(uint32_t kind)
{
	struct blob_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "plerigL1", 8);
	strncpy(h.version, PLERIG_VERSION, sizeof(h.version) - 1);
	h.kind = kind;
	h.sizes[0] = sizeof(struct variant);
	h.sizes[1] = sizeof(struct variant_result);
	h.sizes[2] = sizeof(struct vcpu_record);
	h.sizes[3] = sizeof(struct host_info);
	return h;
}

struct writer {
	uint8_t *p;
	size_t len, cap;
	int failed;
};

static void put(struct writer *w, const void *data, size_t len)
{
	if (w->failed)
		return;
	if (w->len + len > w->cap) {
		size_t cap = (w->cap + len) * 2;
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->failed = 1;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	if (len)
		memcpy(w->p + w->len, data, len);
	w->len += len;
}

static int finish(struct writer *w, struct l1_blob *out, char *err, size_t errlen)
{
	if (w->failed) {
		free(w->p);
		return errbuf_printf(err, errlen, "out of memory for a blob to L1");
	}
	out->data = w->p;
	out->len = w->len;
	return 0;
}

struct reader {
	const uint8_t *p;
	size_t len, at;
};

static int take(struct reader *r, void *out, size_t len)
{
	if (r->len - r->at < len)
		return -1;
	memcpy(out, r->p + r->at, len);
	r->at += len;
	return 0;
}

static int check_header(struct reader *r, uint32_t kind, char *err, size_t errlen)
{
	struct blob_header h, want = header(kind);
	if (take(r, &h, sizeof(h)) || memcmp(h.magic, want.magic, sizeof(h.magic)))
		return errbuf_printf(err, errlen, "not a plerig %s from L1 (%zu bytes)",
				     kind_name(kind), r->len);
	if (h.kind != kind)
		return errbuf_printf(err, errlen, "a %s where a %s was expected", kind_name(h.kind),
				     kind_name(kind));
	h.version[sizeof(h.version) - 1] = '\0';
	if (strcmp(h.version, want.version) || memcmp(h.sizes, want.sizes, sizeof(h.sizes)))
		return errbuf_printf(err, errlen,
				     "the %s comes from another plerig (%s, structures %u/%u/%u/%u "
				     "bytes; this one: %s, %u/%u/%u/%u): the L1 medium holds "
				     "another build",
				     kind_name(kind), h.version, h.sizes[0], h.sizes[1], h.sizes[2],
				     h.sizes[3], want.version, want.sizes[0], want.sizes[1],
				     want.sizes[2], want.sizes[3]);
	return 0;
}

int l1_blob_variant(const struct variant *v, struct l1_blob *out, char *err, size_t errlen)
{
	struct writer w = {0};
	struct blob_header h = header(BLOB_VARIANT);
	put(&w, &h, sizeof(h));
	put(&w, v, sizeof(*v));
	return finish(&w, out, err, errlen);
}

int l1_blob_read_variant(const void *data, size_t len, struct variant *v, char *err, size_t errlen)
{
	struct reader r = {.p = data, .len = len};
	if (check_header(&r, BLOB_VARIANT, err, errlen))
		return -1;
	if (take(&r, v, sizeof(*v)) || r.at != len)
		return errbuf_printf(err, errlen, "a variant blob of %zu bytes: cut or padded",
				     len);
	if (v->nr_pcpus > PLERIG_MAX_PCPUS || !v->vms || v->vms > PLERIG_MAX_VMS || !v->vcpus ||
	    v->vcpus > PLERIG_MAX_VCPUS)
		return errbuf_printf(
		    err, errlen, "a variant blob with %u VMs x %u vCPUs on %u CPUs: out of range",
		    v->vms, v->vcpus, v->nr_pcpus);
	return 0;
}

int l1_blob_result(const struct variant_result *r, struct l1_blob *out, char *err, size_t errlen)
{
	struct writer w = {0};
	struct blob_header h = header(BLOB_RESULT);
	struct variant_result flat = *r;
	const uint8_t has_pc = r->protected_counter != NULL;
	const uint8_t has_wa = r->window_acquisitions != NULL;
	const size_t vms = r->variant.vms;
	flat.records = NULL;
	flat.protected_counter = NULL;
	flat.window_acquisitions = NULL;
	put(&w, &h, sizeof(h));
	put(&w, &flat, sizeof(flat));
	put(&w, r->records, r->nr_records * sizeof(*r->records));
	put(&w, &has_pc, 1);
	if (has_pc)
		put(&w, r->protected_counter, vms * sizeof(uint64_t));
	put(&w, &has_wa, 1);
	if (has_wa)
		put(&w, r->window_acquisitions, vms * sizeof(uint64_t));
	return finish(&w, out, err, errlen);
}

static int take_counters(struct reader *rd, size_t vms, uint64_t **out)
{
	uint8_t has;
	if (take(rd, &has, 1) || has > 1)
		return -1;
	if (!has)
		return 0;
	*out = calloc(vms ? vms : 1, sizeof(uint64_t));
	return *out ? take(rd, *out, vms * sizeof(uint64_t)) : -1;
}

int l1_blob_read_result(const void *data, size_t len, struct variant_result *r, char *err,
			size_t errlen)
{
	struct reader rd = {.p = data, .len = len};
	memset(r, 0, sizeof(*r));
	if (check_header(&rd, BLOB_RESULT, err, errlen))
		return -1;
	if (take(&rd, r, sizeof(*r)))
		goto cut;
	r->records = NULL;
	r->protected_counter = NULL;
	r->window_acquisitions = NULL;
	const unsigned nr = r->nr_records;
	r->nr_records = 0;
	if (r->variant.vms > PLERIG_MAX_VMS ||
	    nr > (unsigned long long)PLERIG_MAX_VMS * PLERIG_MAX_VCPUS)
		return errbuf_printf(err, errlen, "a result blob with %u VMs, %u vCPU records",
				     r->variant.vms, nr);
	/* strings L1 filled must end inside their arrays */
	r->error[sizeof(r->error) - 1] = '\0';
	if (nr) {
		r->records = calloc(nr, sizeof(*r->records));
		if (!r->records)
			return errbuf_printf(err, errlen, "out of memory for %u vCPU records", nr);
		r->nr_records = nr;
		if (take(&rd, r->records, nr * sizeof(*r->records)))
			goto cut;
	}
	if (take_counters(&rd, r->variant.vms, &r->protected_counter) ||
	    take_counters(&rd, r->variant.vms, &r->window_acquisitions) || rd.at != len)
		goto cut;
	return 0;
cut:
	variant_result_free(r);
	return errbuf_printf(err, errlen, "a result blob of %zu bytes: cut short or padded", len);
}

int l1_blob_host(const struct host_info *h, struct l1_blob *out, char *err, size_t errlen)
{
	struct writer w = {0};
	struct blob_header hd = header(BLOB_HOST);
	put(&w, &hd, sizeof(hd));
	put(&w, h, sizeof(*h));
	return finish(&w, out, err, errlen);
}

int l1_blob_read_host(const void *data, size_t len, struct host_info *h, char *err, size_t errlen)
{
	struct reader r = {.p = data, .len = len};
	if (check_header(&r, BLOB_HOST, err, errlen))
		return -1;
	if (take(&r, h, sizeof(*h)) || r.at != len)
		return errbuf_printf(err, errlen, "a host blob of %zu bytes: cut or padded", len);
	/* every string ends inside its array, whatever L1 put there */
	h->name[sizeof(h->name) - 1] = h->kernel[sizeof(h->kernel) - 1] = '\0';
	h->kvm_module[sizeof(h->kvm_module) - 1] = h->cpu_model[sizeof(h->cpu_model) - 1] = '\0';
	h->kvm_module_source[sizeof(h->kvm_module_source) - 1] = '\0';
	h->ple_params[sizeof(h->ple_params) - 1] = h->connection[sizeof(h->connection) - 1] = '\0';
	h->hypervisor[sizeof(h->hypervisor) - 1] = h->unknown_why[sizeof(h->unknown_why) - 1] =
	    '\0';
	return 0;
}

static void put_bytes(struct writer *w, const void *data, uint64_t len)
{
	put(w, &len, sizeof(len));
	put(w, data, (size_t)len);
}

int l1_blob_exec(const char *const *argv, unsigned argc, const struct l1_file *files,
		 unsigned nr_files, struct l1_blob *out, char *err, size_t errlen)
{
	struct writer w = {0};
	struct blob_header h = header(BLOB_EXEC);
	put(&w, &h, sizeof(h));
	put(&w, &argc, sizeof(argc));
	for (unsigned i = 0; i < argc; i++)
		put_bytes(&w, argv[i], strlen(argv[i]));
	put(&w, &nr_files, sizeof(nr_files));
	for (unsigned i = 0; i < nr_files; i++) {
		if (!l1_relative_name(files[i].name)) {
			free(w.p);
			return errbuf_printf(err, errlen,
					     "a file for L1 named '%s': not a plain path",
					     files[i].name);
		}
		put_bytes(&w, files[i].name, strlen(files[i].name));
		put_bytes(&w, files[i].data, files[i].len);
	}
	return finish(&w, out, err, errlen);
}

/* A length-prefixed string or file, malloc'ed with a NUL after it. */
static int take_bytes(struct reader *r, uint8_t **out, size_t *len)
{
	uint64_t n;
	if (take(r, &n, sizeof(n)) || n > r->len - r->at)
		return -1;
	*out = malloc((size_t)n + 1);
	if (!*out)
		return -1;
	(*out)[n] = '\0';
	*len = (size_t)n;
	return take(r, *out, (size_t)n);
}

int l1_blob_read_exec(const void *data, size_t len, struct l1_exec_request *q, char *err,
		      size_t errlen)
{
	struct reader r = {.p = data, .len = len};
	memset(q, 0, sizeof(*q));
	if (check_header(&r, BLOB_EXEC, err, errlen))
		return -1;
	unsigned argc, nr;
	size_t n;
	if (take(&r, &argc, sizeof(argc)) || argc > 4096 ||
	    !(q->argv = calloc(argc + 1, sizeof(char *))))
		goto cut;
	for (; q->argc < argc; q->argc++)
		if (take_bytes(&r, (uint8_t **)&q->argv[q->argc], &n))
			goto cut;
	if (take(&r, &nr, sizeof(nr)) || nr > 4096 ||
	    !(q->files = calloc(nr ? nr : 1, sizeof(*q->files))))
		goto cut;
	for (; q->nr_files < nr; q->nr_files++) {
		struct l1_file *f = &q->files[q->nr_files];
		uint8_t *name = NULL;
		if (take_bytes(&r, &name, &n)) {
			free(name);
			goto cut;
		}
		const bool ok = n < sizeof(f->name) && l1_relative_name((char *)name);
		memcpy(f->name, name, ok ? n + 1 : 1);
		free(name);
		if (!ok) {
			l1_exec_request_free(q);
			return errbuf_printf(err, errlen,
					     "a file for L1 with a name that is not a "
					     "plain relative path");
		}
		if (take_bytes(&r, &f->data, &f->len)) {
			q->nr_files++;
			goto cut;
		}
	}
	if (r.at == len)
		return 0;
cut:
	l1_exec_request_free(q);
	return errbuf_printf(err, errlen, "a command blob of %zu bytes: cut short or padded", len);
}

void l1_exec_request_free(struct l1_exec_request *q)
{
	for (unsigned i = 0; q->argv && i <= q->argc; i++)
		free(q->argv[i]);
	free(q->argv);
	for (unsigned i = 0; i < q->nr_files; i++)
		l1_file_free(&q->files[i]);
	free(q->files);
	memset(q, 0, sizeof(*q));
}

bool l1_relative_name(const char *name)
{
	if (!*name || *name == '/')
		return false;
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 2 && !strncmp(p, "..", 2)) || (n == 1 && *p == '.'))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

void l1_blob_free(struct l1_blob *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}
