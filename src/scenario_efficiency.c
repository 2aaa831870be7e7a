/*
 * scenario_efficiency.c — the vllm engine's "efficiency" object: overrides
 * of the step-time model's terms (docs/MODEL.md P9-P15) for every replica of
 * the engine, loaded onto the perf cfg's "use the default" sentinels and
 * printed back only where given.
 */
#include "scenario_walk.h"

#include "fleetsim/perf.h"
#include "scenario_schema.h"

#define GB 1e9

static const char *const EFFICIENCY_KEYS[] = {
	"mfu", "mbu", "mfu_8bit", "attn_prefill_eff", "attn_decode_eff",
	"elementwise_eff", "knee_exp", "gemm_floor", "link_gbps", "eager_launch",
	"iteration_overhead",
	"per_seq_overhead", "layer_overhead", "allreduce_latency", "activation_reserve_gb",
	NULL
};

int fs__sc_load_efficiency(struct fs__sc *sc, const cJSON *node, struct fs_perf_cfg *perf)
{
	double reserve_gb = -1, link_gbps = 0;

	if (fs__sc_check_object(sc, node, EFFICIENCY_KEYS) != 0 ||
	    fs__sc_number(sc, node, "mfu", 0, true, 1, false, &perf->mfu) < 0 ||
	    fs__sc_number(sc, node, "mbu", 0, true, 1, false, &perf->mbu) < 0 ||
	    fs__sc_number(sc, node, "mfu_8bit", 0, true, 1, false, &perf->mfu_8bit) < 0 ||
	    fs__sc_number(sc, node, "attn_prefill_eff", 0, true, 1, false,
	                  &perf->attn_prefill_eff) < 0 ||
	    fs__sc_number(sc, node, "attn_decode_eff", 0, true, 1, false,
	                  &perf->attn_decode_eff) < 0 ||
	    fs__sc_number(sc, node, "elementwise_eff", 0, true, 1, false,
	                  &perf->elementwise_eff) < 0 ||
	    fs__sc_number(sc, node, "knee_exp", 1, false, 64, false, &perf->knee_exp) < 0 ||
	    fs__sc_duration_upto(sc, node, "gemm_floor", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->gemm_floor_ns) < 0 ||
	    fs__sc_number(sc, node, "link_gbps", 0, true, 1e6, false, &link_gbps) < 0 ||
	    fs__sc_duration_upto(sc, node, "eager_launch", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->eager_launch_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "iteration_overhead", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->iteration_overhead_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "per_seq_overhead", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->per_seq_overhead_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "layer_overhead", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->layer_overhead_ns) < 0 ||
	    fs__sc_duration_upto(sc, node, "allreduce_latency", 0, FS__MAX_OVERHEAD_NS,
	                         &perf->allreduce_latency_ns) < 0 ||
	    fs__sc_number(sc, node, "activation_reserve_gb", 0, false, 1e6, false,
	                  &reserve_gb) < 0)
		return -1;
	if (link_gbps > 0)
		perf->link_bytes_per_s = link_gbps * GB;
	if (reserve_gb >= 0)
		perf->activation_reserve_bytes = reserve_gb * GB;
	return 0;
}

void fs__sc_print_efficiency(const struct fs_perf_cfg *p, cJSON *engine)
{
	cJSON *eff;

	if (!(p->mfu > 0 || p->mbu > 0 || p->mfu_8bit > 0 || p->attn_prefill_eff > 0 ||
	      p->attn_decode_eff > 0 || p->elementwise_eff > 0 || p->knee_exp > 0 ||
	      p->gemm_floor_ns >= 0 || p->link_bytes_per_s > 0 || p->eager_launch_ns >= 0 ||
	      p->iteration_overhead_ns >= 0 || p->per_seq_overhead_ns >= 0 ||
	      p->layer_overhead_ns >= 0 || p->allreduce_latency_ns >= 0 ||
	      p->activation_reserve_bytes >= 0))
		return;
	eff = cJSON_AddObjectToObject(engine, "efficiency");
	if (p->mfu > 0)
		fs__sc_print_number(eff, "mfu", p->mfu);
	if (p->mbu > 0)
		fs__sc_print_number(eff, "mbu", p->mbu);
	if (p->mfu_8bit > 0)
		fs__sc_print_number(eff, "mfu_8bit", p->mfu_8bit);
	if (p->attn_prefill_eff > 0)
		fs__sc_print_number(eff, "attn_prefill_eff", p->attn_prefill_eff);
	if (p->attn_decode_eff > 0)
		fs__sc_print_number(eff, "attn_decode_eff", p->attn_decode_eff);
	if (p->elementwise_eff > 0)
		fs__sc_print_number(eff, "elementwise_eff", p->elementwise_eff);
	if (p->knee_exp > 0)
		fs__sc_print_number(eff, "knee_exp", p->knee_exp);
	if (p->gemm_floor_ns >= 0)
		fs__sc_print_duration(eff, "gemm_floor", p->gemm_floor_ns);
	if (p->link_bytes_per_s > 0)
		fs__sc_print_number(eff, "link_gbps", p->link_bytes_per_s / GB);
	if (p->eager_launch_ns >= 0)
		fs__sc_print_duration(eff, "eager_launch", p->eager_launch_ns);
	if (p->iteration_overhead_ns >= 0)
		fs__sc_print_duration(eff, "iteration_overhead", p->iteration_overhead_ns);
	if (p->per_seq_overhead_ns >= 0)
		fs__sc_print_duration(eff, "per_seq_overhead", p->per_seq_overhead_ns);
	if (p->layer_overhead_ns >= 0)
		fs__sc_print_duration(eff, "layer_overhead", p->layer_overhead_ns);
	if (p->allreduce_latency_ns >= 0)
		fs__sc_print_duration(eff, "allreduce_latency", p->allreduce_latency_ns);
	if (p->activation_reserve_bytes >= 0)
		fs__sc_print_number(eff, "activation_reserve_gb", p->activation_reserve_bytes / GB);
}

/* This file's key and name tables, for `fleetsim schema` (scenario_schema.h). */
const struct fs__sc_table *fs__sc_efficiency_tables(void)
{
	static const struct fs__sc_table tables[] = {
		FS__SC_TABLE(EFFICIENCY_KEYS),
		{ NULL, NULL }
	};

	return tables;
}
