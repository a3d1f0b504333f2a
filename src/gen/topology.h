/*
 * gen/topology.h - CPU and NUMA topology for the per-node and per-CPU
 * designs (gen/topology.c).
 *
 * Read once (at a backend's init): the possible CPUs from
 * /sys/devices/system/cpu/possible, the node of each CPU from
 * /sys/devices/system/node/node<N>/cpulist (nodes renumbered densely).
 * SURAND_NODES=N (1..1024) instead splits the CPUs into N simulated nodes,
 * CPU c on node c % N, so one-node machines can run the per-node designs.
 * Without sysfs: one node.
 */
#ifndef SURAND_GEN_TOPOLOGY_H
#define SURAND_GEN_TOPOLOGY_H

#include "internal.h"

void surand_topology_init(void) SURAND_HIDDEN;
unsigned surand_node_count(void) SURAND_HIDDEN;
/* Size for per-CPU arrays: at least the possible CPUs (max id + 1). */
unsigned surand_cpu_slots(void) SURAND_HIDDEN;
unsigned surand_node_of_cpu(unsigned cpu) SURAND_HIDDEN;
/* The calling thread's CPU now (sched_getcpu: rseq or vDSO); per-CPU arrays
 * index it modulo surand_cpu_slots() (test overrides may exceed it). */
unsigned surand_current_cpu(void) SURAND_HIDDEN;

static inline unsigned surand_current_node(void)
{
	return surand_node_of_cpu(surand_current_cpu());
}

#endif /* SURAND_GEN_TOPOLOGY_H */
