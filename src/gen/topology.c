/*
 * topology.c - the possible CPUs and their NUMA nodes, read once from sysfs,
 * or SURAND_NODES simulated nodes (gen/topology.h).
 * SPDX-License-Identifier: MIT
 */
#include "gen/topology.h"
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- CPU and NUMA topology --------------------------------------------------- */

#define TOPO_MAX_CPUS 65536u
#define TOPO_MAX_NODES 1024u

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static unsigned topo_cpus = 1;     /* surand_cpu_slots() */
static unsigned topo_nodes = 1;
static unsigned topo_sim_nodes;    /* SURAND_NODES, 0: real topology */
static uint16_t *topo_cpu_node;    /* [topo_cpus]: dense node index; NULL: all node 0 */
#ifdef SURAND_TEST_BUILD
static int topo_cpu_override = -1;
void surand_test_cpu_override(int cpu)
{
	__atomic_store_n(&topo_cpu_override, cpu, __ATOMIC_RELAXED);
}
#endif

/* Reads a small sysfs file into buf (NUL-terminated); 0 or -1. */
static int read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * Parses a sysfs CPU list ("0-3,8,10-11") and calls fn for each CPU below
 * limit; returns the highest CPU seen + 1 (0 if none).  Malformed input
 * stops the parse: what was read so far counts.
 */
static unsigned parse_cpulist(const char *s, unsigned limit, void (*fn)(unsigned, void *), void *arg)
{
	unsigned long a, b, c;
	unsigned top = 0;
	char *end;

	while (*s) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!isdigit((unsigned char)*s))
			break;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				break;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b >= TOPO_MAX_CPUS)
			break;
		for (c = a; c <= b; c++) {
			if (c < limit && fn)
				fn((unsigned)c, arg);
		}
		if (b + 1 > top)
			top = (unsigned)b + 1;
	}
	return top;
}

struct node_fill {
	uint16_t node;
};

static void set_cpu_node(unsigned cpu, void *arg)
{
	topo_cpu_node[cpu] = ((struct node_fill *)arg)->node;
}

static void topology_read(void)
{
	char buf[4096], path[96];
	struct dirent *de;
	struct node_fill nf;
	unsigned cpus = 0, n, id;
	long conf;
	DIR *d;
	char *end;

	topo_sim_nodes = surand_design_config()->nodes;
	if (read_small("/sys/devices/system/cpu/possible", buf, sizeof(buf)) == 0)
		cpus = parse_cpulist(buf, 0, NULL, NULL);
	conf = sysconf(_SC_NPROCESSORS_CONF);
	if (conf > 0 && (unsigned long)conf > cpus)
		cpus = (unsigned)conf;
	if (cpus == 0)
		cpus = 1;
	if (cpus > TOPO_MAX_CPUS)
		cpus = TOPO_MAX_CPUS;
	topo_cpus = cpus;
	if (topo_sim_nodes) {
		topo_nodes = topo_sim_nodes;
		return;
	}
	topo_cpu_node = calloc(cpus, sizeof(*topo_cpu_node));
	d = topo_cpu_node ? opendir("/sys/devices/system/node") : NULL;
	if (!d)
		return; /* one node */
	n = 0;
	while ((de = readdir(d)) != NULL && n < TOPO_MAX_NODES) {
		if (strncmp(de->d_name, "node", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		id = (unsigned)strtoul(de->d_name + 4, &end, 10);
		if (*end)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", id);
		if (read_small(path, buf, sizeof(buf)) != 0)
			continue;
		nf.node = (uint16_t)n;
		/* Nodes without CPUs (memory only) get no index. */
		if (parse_cpulist(buf, cpus, set_cpu_node, &nf) > 0)
			n++;
	}
	closedir(d);
	topo_nodes = n ? n : 1;
}

void surand_topology_init(void)
{
	pthread_once(&topo_once, topology_read);
}

unsigned surand_node_count(void)
{
	surand_topology_init();
	return topo_nodes;
}

unsigned surand_cpu_slots(void)
{
	surand_topology_init();
	return topo_cpus;
}

unsigned surand_node_of_cpu(unsigned cpu)
{
	/* Called after surand_topology_init() (a backend's init). */
	if (topo_sim_nodes)
		return cpu % topo_sim_nodes;
	if (!topo_cpu_node || cpu >= topo_cpus)
		return 0;
	return topo_cpu_node[cpu] < topo_nodes ? topo_cpu_node[cpu] : 0;
}

unsigned surand_current_cpu(void)
{
	int c;

#ifdef SURAND_TEST_BUILD
	/* Not reduced: tests name CPUs beyond this machine's (simulated nodes);
	 * per-CPU users index modulo surand_cpu_slots() anyway. */
	c = __atomic_load_n(&topo_cpu_override, __ATOMIC_RELAXED);
	if (c >= 0)
		return (unsigned)c;
#endif
	c = sched_getcpu();
	if (c < 0)
		return 0;
	/* Defensive: a CPU hot-added beyond what was read at init shares a slot. */
	return (unsigned)c < topo_cpus ? (unsigned)c : (unsigned)c % topo_cpus;
}
