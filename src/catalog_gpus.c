/*
 * catalog_gpus.c — the built-in GPU table: specs, step-time efficiency
 * defaults and dated example prices, each number with its source key beside
 * it (keys S1..S74 expand in docs/CATALOG.md, from the reference gpu_facts.md;
 * "SC§4" is spot_and_cost.md §4).  Immutable static data; TFLOPS are dense.
 */
#include <assert.h>

#include "fleetsim/catalog.h"

#define GB 1e9                        /* bytes; GB = 1e9 as in the sources */
/*
 * Memory (mem_bytes) is what the framework sees, not the marketing size:
 * torch.cuda.get_device_properties(0).total_memory (cudaDeviceProp
 * totalGlobalMem), the figure vLLM multiplies by gpu_memory_utilization
 * (docs/MODEL.md P0, P4).  Where only nvidia-smi's
 * "Total ... MiB" was found, that figure is used (it is slightly larger than
 * torch's, by the driver's reservation).  Published OOM messages give torch's
 * value to two decimals of a GiB; each source is cited beside its number.
 */
#define GIB 1073741824.0              /* bytes in a GiB (torch's unit) */
#define MIB 1048576.0                 /* bytes in a MiB (nvidia-smi's unit) */
#define MEM_TORCH "memory: torch total_memory, what vLLM sees (source beside " \
	"mem_bytes); "
#define MEM_SMI "memory: nvidia-smi total, a little above what vLLM sees (no " \
	"published torch total_memory found); "
#define MEM_KEPT "memory: marketing GB kept, no published torch total_memory or " \
	"nvidia-smi total found (vLLM sees a few percent less); "
#define TFLOPS 1e12
#define US FS_NS_PER_US

/*
 * Step-time defaults, fitted (docs/VALIDATION.md; `make fit-step` prints
 * them) on the fit rows of docs/data/step_points.csv: Vidur kernel profiles
 * of A100 and H100 [S56, S29], TensorRT-LLM v0.5/v0.6 and vLLM CI step
 * times [S55, S69]; held-out rows check them.  MFU and MBU are bounded at
 * 0.95 in the fit (H100's MBU sits at that bound).  GPUs without
 * measurements take the DEFAULT_* values (FS_GPU_*_DEFAULT in catalog.h)
 * and say "uncalibrated".
 */
#define MFU_A100 0.734     /* fit: A100 GEMMs 1-4096 tokens, TP1-8, and A100 steps */
#define MBU_A100 0.744     /* fit */
#define MFU_H100 0.776     /* fit: H100 GEMMs 1-4096 tokens, TP1-8, and H100 steps */
#define MBU_H100 0.918     /* fit */
#define MBU_H200 0.683     /* fit: H200 steps (vLLM CI, TensorRT-LLM blog); HBM3e */
#define MFU_DEFAULT FS_GPU_MFU_DEFAULT   /* 0.74: the first fit's A100 value */
#define MBU_DEFAULT FS_GPU_MBU_DEFAULT   /* 0.74: the lower of the A100/H100 fits */
/* Launch floor of a layer's elementwise kernels, fitted on Vidur's
 * norm/RoPE/activation/add profiles of A100 and H100 alike (24.5 us). */
#define LAYER_A100_NS FS_GPU_LAYER_OVERHEAD_NS_DEFAULT
#define LAYER_H100_NS FS_GPU_LAYER_OVERHEAD_NS_DEFAULT
#define LAYER_DEFAULT_NS FS_GPU_LAYER_OVERHEAD_NS_DEFAULT
/* Host work per engine step and per sequence, fitted on the whole steps
 * (the per-step part is poorly identified: 165 us, standard error 377%; a decode step
 * replayed from a CUDA graph pays little, a prompt step pays the eager
 * launch of P15 instead). */
#define ITER_DEFAULT_NS FS_GPU_ITERATION_OVERHEAD_NS_DEFAULT
#define SEQ_DEFAULT_NS FS_GPU_PER_SEQ_OVERHEAD_NS_DEFAULT
/* NCCL all-reduce launch latency, fitted with the bus bandwidth on Vidur's
 * DGX profiles at TP 2/4/8, 18 KB-64 MB [S29]: A100 33 us, H100 29 us. */
#define ALLREDUCE_A100_NS (33 * US)
#define ALLREDUCE_H100_NS (29 * US)
#define ALLREDUCE_DEFAULT_NS FS_GPU_ALLREDUCE_LATENCY_NS_DEFAULT   /* 60 us */
/* Prefill attention: "FlashAttention-2 achieving only 35% utilization on
 * the H100 GPU" (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608) [S77];
 * other GPUs take FS_GPU_ATTN_EFF_DEFAULT (FA2 on A100, 50-73% [S76]). */
#define ATTN_HOPPER 0.35
/* 8-bit GEMMs: Hopper reaches 0.786 of its 16-bit MFU relative to the fp8
 * peak (fit: TensorRT-LLM fp8 rows on H100/H200); the Ada fp8 rows (L40S)
 * fit at the ratio's bound 1.0, so Ada's 8-bit MFU equals its 16-bit one. */
#define MFU_8BIT_H100 (MFU_H100 * 0.786)
#define MFU_8BIT_ADA MFU_DEFAULT
/* MI300X with ROCm vLLM 0.7.3 (AMD's published decode steps, TP 8, fp8):
 * a per-sequence cost of 116 us, an all-reduce latency of 16 us and an MBU of
 * 0.58 fit. */
#define SEQ_MI300X_NS (116 * US)
#define ALLREDUCE_MI300X_NS (16 * US)
#define MBU_MI300X 0.58

/*
 * Monthly price: no per-GPU monthly quote exists in the references, so it is
 * derived as on-demand x (1 - 40% commitment discount) x 730 h.  The 40% is
 * inside both quoted ranges: AWS reserved/Savings Plans GPU 30-60% off [S42],
 * 1-yr committed H100 35-40% off [S43].
 */
#define MONTHLY_USD(od_usd_per_h) ((od_usd_per_h) * (1.0 - 0.40) * 730.0)
#define MONTHLY_NOTE "monthly derived: on-demand x 0.60 x 730 h (S42, S43)"
#define RUNPOD "S37 deploybase.ai RunPod pricing table, on-demand / spot, Mar 2026; " \
	MONTHLY_NOTE
#define UNCAL "uncalibrated: A100/H100-derived default efficiencies (S56); " \
	"iteration/per-sequence overheads are estimates (S70 qualitative)"

static const struct fs_gpu_spec gpus[] = {
{
	.id = "rtx4090",
	.aliases = "rtx-4090,4090,rtx 4090,geforce-rtx-4090,nvidia-rtx-4090",
	.display_name = "NVIDIA GeForce RTX 4090",
	/* torch total_memory: "GPU 0 has a total capacity of 23.64 GiB", RTX 4090
	 * 24GB, ali-vilab/VGen issue #104 (2024-04-02); nvidia-smi shows
	 * 24564 MiB (RLinf/RLinf issue #255, 2025-11).  Marketing: 24 GB (S3). */
	.mem_bytes = 23.64 * GIB,
	.mem_bw_bytes_per_s = 1008 * GB,         /* S1, S3: 1008 GB/s */
	.fp16_flops_per_s = 165.2 * TFLOPS,      /* S2: FP16 with FP32 accumulate, half rate */
	.fp8_flops_per_s = 330.3 * TFLOPS,       /* Ada whitepaper, recalled (gpu_facts †) */
	.int8_ops_per_s = 660.6 * TFLOPS,        /* S2: INT8 dense (sparse / 2) */
	.link_bytes_per_s = 32 * GB,             /* S1: PCIe 4.0 x16 per direction, no NVLink */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 450,                            /* S3 */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.mfu_8bit = MFU_8BIT_ADA,             /* fit: fp8 rows (see above) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0.60,       /* S37: RunPod, Mar 2026 */
	.price_spot_usd_per_h = 0.34,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(0.60),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S2 LLM-Viewer fork (Ada "
		"whitepaper sparse/2); S3 techgoing/grafikkarten RTX 4090 articles",
	.notes = MEM_TORCH
		"FP16 tensor math with FP32 accumulate (BF16) runs at half rate: "
		"165.2 TFLOPS used, 330.3 with FP16 accumulate; FP8 figure recalled "
		"from the Ada whitepaper, not found verbatim; " UNCAL,
},
{
	.id = "rtx6000-ada",
	.aliases = "rtx-6000-ada,rtx6000ada,rtx-6000,rtx6000,6000-ada,rtx 6000 ada",
	.display_name = "NVIDIA RTX 6000 Ada Generation",
	/* torch total_memory: "total capacity of 44.43 GiB", RTX 6000 Ada
	 * (nvidia-smi 46068 MiB, ECC on), DINGYANB/MTVCrafter issue #21
	 * (2025-07-18).  Marketing: 48 GB GDDR6 ECC (S1). */
	.mem_bytes = 44.43 * GIB,
	.mem_bw_bytes_per_s = 960 * GB,          /* S4 */
	.fp16_flops_per_s = 364.2 * TFLOPS,      /* S1: full-rate professional AD102 */
	.fp8_flops_per_s = 728 * TFLOPS,         /* recalled, ~728 (gpu_facts †) */
	.int8_ops_per_s = 728.5 * TFLOPS,        /* S1 */
	.link_bytes_per_s = 32 * GB,             /* S1: PCIe 4.0 x16 per direction, no NVLink */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 300,                            /* S4 */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.mfu_8bit = MFU_8BIT_ADA,             /* fit: fp8 rows (see above) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0,          /* no anchor in the references */
	.price_spot_usd_per_h = 0,
	.price_monthly_usd = 0,
	.price_date = "", .price_source = "none found (Lambda/RunPod A6000 quotes are "
		"the Ampere RTX A6000, not this card)",
	.spec_source = "S1 LLM-Viewer hardware_params.py; S4 grafikkarten.com / "
		"cputronic.com RTX 6000 Ada pages",
	.notes = MEM_TORCH
		"no price anchor: prices are 0; FP8 recalled from the Ada whitepaper; "
		UNCAL,
},
{
	.id = "l4",
	.aliases = "nvidia-l4,l4-24g,l4-24gb",
	.display_name = "NVIDIA L4",
	/* nvidia-smi Total 23034 MiB (no torch figure found): modal-labs/
	 * modal-client PR #2797 (2025-01-23) and lmstudio-ai/lmstudio-bug-
	 * tracker issue #1638.  Marketing: 24 GB (S5). */
	.mem_bytes = 23034 * MIB,
	.mem_bw_bytes_per_s = 300 * GB,          /* S5 */
	.fp16_flops_per_s = 121 * TFLOPS,        /* S1, S5: 242 sparse / 2 */
	.fp8_flops_per_s = 242 * TFLOPS,         /* S1, S5: 485 sparse / 2 */
	.int8_ops_per_s = 242 * TFLOPS,          /* S1 */
	.link_bytes_per_s = 32 * GB,             /* S1: PCIe 4.0 x16, per direction */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 72,                             /* S5 */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.mfu_8bit = MFU_8BIT_ADA,             /* fit: fp8 rows (see above) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0.78,       /* S37: RunPod, Mar 2026 */
	.price_spot_usd_per_h = 0.44,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(0.78),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S5 grokipedia L4 vs L40S, "
		"sourcecode.com L4/L40S compare",
	.notes = MEM_SMI
		"AWS g6.2xlarge (1x L4) lists 0.9776 on-demand, 0.37-0.45 spot "
		"(SkyPilot catalogue v7, SC§4); " UNCAL,
},
{
	.id = "l40s",
	.aliases = "l40-s,nvidia-l40s,l40s-48g,l40s-48gb",
	.display_name = "NVIDIA L40S",
	/* torch total_memory: "total capacity of 44.42 GiB", 8x L40S,
	 * stepfun-ai/Step-Video-T2V issue #8 (2025-02-17); nvidia-smi 46068 MiB
	 * (modal-labs/modal-client PR #2797, 2025-01-23).  Marketing: 48 GB (S1). */
	.mem_bytes = 44.42 * GIB,
	.mem_bw_bytes_per_s = 864 * GB,          /* S1 */
	.fp16_flops_per_s = 362 * TFLOPS,        /* S6: 362.05 BF16 dense */
	.fp8_flops_per_s = 733 * TFLOPS,         /* S6 */
	.int8_ops_per_s = 733 * TFLOPS,          /* S1, S6 */
	.link_bytes_per_s = 32 * GB,             /* S6: PCIe Gen4 64 GB/s bidir = 32 each way */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 350,                            /* S6 */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.mfu_8bit = MFU_8BIT_ADA,             /* fit: fp8 rows (see above) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 1.40,       /* S37: RunPod, Mar 2026 */
	.price_spot_usd_per_h = 0.79,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(1.40),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S6 mullet.se L40/L40S "
		"datasheet table, itcreations.com L40S",
	.notes = MEM_TORCH UNCAL,
},
{
	.id = "a10g",
	.aliases = "nvidia-a10g,a10g-24g,a10g-24gb",
	.display_name = "NVIDIA A10G (AWS g5)",
	.mem_bytes = 24 * GB,                    /* S8; marketing GB (MEM_KEPT) */
	.mem_bw_bytes_per_s = 600 * GB,          /* S8 */
	.fp16_flops_per_s = 70 * TFLOPS,         /* S8, UNCERTAIN: recollection of its table */
	.fp8_flops_per_s = 0,                    /* Ampere: no FP8 */
	.int8_ops_per_s = 0,                     /* not verified (0 = unknown here) */
	.link_bytes_per_s = 32 * GB,             /* S8: PCIe 4.0 (x16 assumed), per direction */
	.interconnect = "PCIe 4.0",
	.tdp_w = 0,                              /* not verified */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 1.006,      /* S36: g5.xlarge us-east-1, Jun 2026 */
	.price_spot_usd_per_h = 0.59,            /* SC§4: g5.12xlarge spot 1.99-2.73 / 4, midpoint */
	.price_monthly_usd = MONTHLY_USD(1.006),
	.price_date = "2026-06",
	.price_source = "S36 factualminds.com EC2 on-demand pricing 2026 (g5.xlarge, "
		"us-east-1); spot: SkyPilot catalogue v7 AWS us-east-1 g5.12xlarge "
		"(undated, spot_and_cost.md §4) per GPU; " MONTHLY_NOTE,
	.spec_source = "S8 baseten.co A10 vs A10G blog",
	.notes = MEM_KEPT
		"FP16 TFLOPS UNCERTAIN (~70, below the A10's 125; S8's table not "
		"visible in the excerpt); INT8 and TDP not verified (0); spot price "
		"undated; on-demand matches Melange's 1.01 (SC§1); " UNCAL,
},
{
	.id = "a10",
	.aliases = "nvidia-a10,a10-24g,a10-24gb",
	.display_name = "NVIDIA A10",
	/* torch total_memory: "total capacty of 21.99 GiB", Lambda A10 instance,
	 * zai-org/CogVLM issue #236 (2023-12-22).  Marketing: 24 GB (S7). */
	.mem_bytes = 21.99 * GIB,
	.mem_bw_bytes_per_s = 600 * GB,          /* S7, S8 */
	.fp16_flops_per_s = 125 * TFLOPS,        /* S7 */
	.fp8_flops_per_s = 0,                    /* Ampere: no FP8 */
	.int8_ops_per_s = 250 * TFLOPS,          /* S7 */
	.link_bytes_per_s = 32 * GB,             /* S7: PCIe 4.0 x16, per direction */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 150,                            /* datasheet value, not found verbatim (‡) */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0,          /* no anchor in the references */
	.price_spot_usd_per_h = 0,
	.price_monthly_usd = 0,
	.price_date = "", .price_source = "none found (AWS rents the A10G, see a10g)",
	.spec_source = "S7 astroC86/gpu-datasheet README; S8 baseten.co A10 vs A10G",
	.notes = MEM_TORCH
		"no price anchor: prices are 0; TDP 150 W is the datasheet value, "
		"not found verbatim; " UNCAL,
},
{
	.id = "t4",
	.aliases = "tesla-t4,nvidia-t4,t4-16g,t4-16gb",
	.display_name = "NVIDIA T4",
	/* torch total_memory: "total capacity of 14.74 GiB", Colab T4,
	 * zai-org/CogVideo issue #741 (2025-03-19); nvidia-smi 15360 MiB
	 * (modal-labs/modal-client PR #2797).  Marketing: 16 GB (S9). */
	.mem_bytes = 14.74 * GIB,
	.mem_bw_bytes_per_s = 320 * GB,          /* S9: sysrqmts.com */
	.fp16_flops_per_s = 65 * TFLOPS,         /* S9: mixed FP16 */
	.fp8_flops_per_s = 0,                    /* Turing: no FP8 */
	.int8_ops_per_s = 130 * TFLOPS,          /* S9 (INT4 260, S10) */
	.link_bytes_per_s = 16 * GB,             /* S9: PCIe 3.0 x16, per direction */
	.interconnect = "PCIe 3.0 x16",
	.tdp_w = 70,                             /* S9 */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0.526,      /* SC§4: g4dn.xlarge us-east-1 */
	.price_spot_usd_per_h = 0.19,            /* SC§4: 0.1845-0.2010 across AZs */
	.price_monthly_usd = MONTHLY_USD(0.526),
	.price_date = "undated",
	.price_source = "SkyPilot catalogue v7 AWS us-east-1 g4dn.xlarge (snapshot "
		"date unknown; spot_and_cost.md §4); " MONTHLY_NOTE,
	.spec_source = "S9 networkoutlet.com / sysrqmts.com T4 specs; S10 geektopia.es",
	.notes = MEM_TORCH
		"price snapshot undated (catalogue refreshes every 7 h); " UNCAL,
},
{
	.id = "v100",
	.aliases = "v100-32g,v100-32gb,v100-sxm2,v100-sxm2-32g,v100-sxm2-32gb,tesla-v100",
	.display_name = "NVIDIA V100 SXM2 32GB",
	/* torch total_memory: "31.74 GiB total capacity", 8x V100,
	 * haotian-liu/LLaVA issue #812 (2023-11).  Marketing: 32 GB HBM2 (S1). */
	.mem_bytes = 31.74 * GIB,
	.mem_bw_bytes_per_s = 900 * GB,          /* S1 */
	.fp16_flops_per_s = 125 * TFLOPS,        /* S11: SXM2 tensor */
	.fp8_flops_per_s = 0,                    /* Volta: no FP8 */
	.int8_ops_per_s = 0,                     /* S1: no INT8 tensor cores */
	.link_bytes_per_s = 150 * GB,            /* S12: NVLink2 300 GB/s total = 150 each way */
	.interconnect = "NVLink2 300 GB/s",
	.tdp_w = 300,                            /* datasheet value, not re-verified */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 3.9015,     /* SC§4: p3dn.24xlarge 31.212 / 8 */
	.price_spot_usd_per_h = 0.44,            /* SC§4: 3.26-3.81 / 8, midpoint */
	.price_monthly_usd = MONTHLY_USD(3.9015),
	.price_date = "undated",
	.price_source = "SkyPilot catalogue v7 AWS us-east-1 p3dn.24xlarge (8x "
		"V100-32GB; snapshot date unknown; spot_and_cost.md §4); " MONTHLY_NOTE,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S11 winston-zhang-orz/"
		"gpu-specs; S12 leadtek.com GS4830NT",
	.notes = MEM_TORCH
		"TDP is the datasheet value, not re-verified; price undated; " UNCAL,
},
{
	.id = "v100-16g",
	.aliases = "v100-16gb,v100-sxm2-16g,v100-sxm2-16gb",
	.display_name = "NVIDIA V100 SXM2 16GB",
	/* torch total_memory: "15.78 GiB total capacity", 16G V100,
	 * kchengiva/Shift-GCN issue #34 (2021-09-15).  Marketing: 16 GB (S1). */
	.mem_bytes = 15.78 * GIB,
	.mem_bw_bytes_per_s = 900 * GB,          /* S1 */
	.fp16_flops_per_s = 125 * TFLOPS,        /* S11 */
	.fp8_flops_per_s = 0,
	.int8_ops_per_s = 0,                     /* S1: no INT8 tensor cores */
	.link_bytes_per_s = 150 * GB,            /* S12: NVLink2, per direction */
	.interconnect = "NVLink2 300 GB/s",
	.tdp_w = 300,                            /* datasheet value, not re-verified */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 3.06,       /* SC§4: p3.8xlarge 12.24 / 4 */
	.price_spot_usd_per_h = 0.54,            /* SC§4: 1.75-2.55 / 4, midpoint */
	.price_monthly_usd = MONTHLY_USD(3.06),
	.price_date = "undated",
	.price_source = "SkyPilot catalogue v7 AWS us-east-1 p3.8xlarge (4x V100 "
		"16GB; snapshot date unknown; spot_and_cost.md §4); " MONTHLY_NOTE,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S11; S12",
	.notes = MEM_TORCH
		"Can't-Be-Late uses p3.2xlarge 3.06 on-demand / 0.9731 spot (SC§1); "
		"price undated; " UNCAL,
},
{
	.id = "a100-40g",
	.aliases = "a100-40gb,a100-40g-sxm,a100-sxm4-40gb,a100-40gb-sxm",
	.display_name = "NVIDIA A100 40GB SXM",
	/* torch total_memory: "total capacty of 39.56 GiB", NVIDIA
	 * A100-SXM4-40GB in nvidia-smi, threestudio-project/threestudio issue #402
	 * (2024-01-06); nvidia-smi 40960 MiB (modal-labs/modal-client PR #2797).
	 * Marketing: 40 GB (S1, S13). */
	.mem_bytes = 39.56 * GIB,
	.mem_bw_bytes_per_s = 1555 * GB,         /* S1, S7: 1.555 TB/s */
	.fp16_flops_per_s = 312 * TFLOPS,        /* S1, S13: 624 sparse / 2 */
	.fp8_flops_per_s = 0,                    /* Ampere: no FP8 */
	.int8_ops_per_s = 624 * TFLOPS,          /* S1, S13 */
	.link_bytes_per_s = 129 * GB,            /* fit: NCCL busBW, A100 DGX (S29) */
	.interconnect = "NVLink3 600 GB/s",
	.tdp_w = 400,                            /* S13 */
	.mfu = MFU_A100, .mbu = MBU_A100,        /* A100-80G SXM calibration, same GA100 */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_A100_NS, .allreduce_latency_ns = ALLREDUCE_A100_NS,
	.price_on_demand_usd_per_h = 4.0966,     /* SC§4: p4d.24xlarge 32.7726 / 8 */
	.price_spot_usd_per_h = 0.92,            /* SC§4: 5.09-9.61 / 8, midpoint */
	.price_monthly_usd = MONTHLY_USD(4.0966),
	.price_date = "undated",
	.price_source = "SkyPilot catalogue v7 AWS us-east-1 p4d.24xlarge (snapshot "
		"date unknown, before the June-2025 AWS cut, S32; spot_and_cost.md §4); "
		MONTHLY_NOTE,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S7 astroC86/gpu-datasheet; "
		"S13 NVIDIA A100 datasheet",
	.notes = MEM_TORCH
		"efficiencies from the A100-80G SXM measurements (S56), not measured "
		"on this SKU; AWS on-demand is pre-June-2025-cut list price; Lambda "
		"quotes 1.29/GPU-h (SC§4); overheads are estimates",
},
{
	.id = "a100-80g",
	.aliases = "a100-80g-sxm,a100-80gb,a100-80gb-sxm,a100-sxm4-80gb,a100-sxm,a100",
	.display_name = "NVIDIA A100 80GB SXM",
	/* torch total_memory: "total capacity of 79.25 GiB", A100 (80 GB),
	 * HiDream-ai/VAREdit issue #6 (2025-12-18); nvidia-smi 81920 MiB
	 * (modal-labs/modal-client PR #2797).  Marketing: 80 GB (S1, S13). */
	.mem_bytes = 79.25 * GIB,
	.mem_bw_bytes_per_s = 2039 * GB,         /* S14 */
	.fp16_flops_per_s = 312 * TFLOPS,        /* S1, S13 */
	.fp8_flops_per_s = 0,                    /* Ampere: no FP8 */
	.int8_ops_per_s = 624 * TFLOPS,          /* S1, S13 */
	.link_bytes_per_s = 129 * GB,            /* fit: NCCL busBW, A100 DGX, NVLink3 (S29) */
	.interconnect = "NVLink3 600 GB/s",
	.tdp_w = 400,                            /* S13 */
	.mfu = MFU_A100, .mbu = MBU_A100,        /* calibrated: S56 */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_A100_NS, .allreduce_latency_ns = ALLREDUCE_A100_NS,
	.price_on_demand_usd_per_h = 2.45,       /* S37: RunPod A100 SXM 80GB, Mar 2026 */
	.price_spot_usd_per_h = 1.39,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(2.45),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S13 NVIDIA A100 datasheet; "
		"S14 LLM-Prof hardware_spec.md",
	.notes = MEM_TORCH
		"MFU/MBU calibrated on Vidur A100 profiles (S56); all-reduce floor "
		"is TP4/8 (~10 us at TP2, S29); iteration/per-sequence overheads are "
		"estimates",
},
{
	.id = "a100-80g-pcie",
	.aliases = "a100-80gb-pcie,a100-pcie,a100-pcie-80gb,a100-pcie-80g",
	.display_name = "NVIDIA A100 80GB PCIe",
	.mem_bytes = 80 * GB,                    /* S13; marketing GB (MEM_KEPT) */
	.mem_bw_bytes_per_s = 1935 * GB,         /* S7: 1.94 TB/s */
	.fp16_flops_per_s = 312 * TFLOPS,        /* S13 */
	.fp8_flops_per_s = 0,
	.int8_ops_per_s = 624 * TFLOPS,          /* S13 */
	.link_bytes_per_s = 32 * GB,             /* S1: PCIe 4.0 x16 per direction (bridge pairs only) */
	.interconnect = "PCIe 4.0 x16",
	.tdp_w = 300,                            /* S13: datasheet value (‡) */
	.mfu = MFU_A100, .mbu = MBU_A100,        /* A100-80G SXM calibration */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_A100_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 2.10,       /* S37: RunPod A100 PCIe, Mar 2026 */
	.price_spot_usd_per_h = 1.19,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(2.10),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S7 astroC86/gpu-datasheet; S13 NVIDIA A100 datasheet",
	.notes = MEM_KEPT
		"an optional NVLink bridge (600 GB/s) joins pairs only, so the link "
		"is PCIe; efficiencies from the A100-80G SXM measurements, not measured "
		"on this SKU; all-reduce floor uncalibrated for PCIe",
},
{
	.id = "h100",
	.aliases = "h100-sxm,h100-sxm5,h100-80g,h100-80gb,h100-sxm5-80gb,h100-sxm-80gb",
	.display_name = "NVIDIA H100 SXM5 80GB",
	/* torch total_memory: "total capacity of 79.11 GiB", NVIDIA H100 80GB
	 * HBM3 (nvidia-smi 81559 MiB), vllm-project/vllm issue #27508
	 * (2025-10-25).  Marketing: 80 GB (S15). */
	.mem_bytes = 79.11 * GIB,
	.mem_bw_bytes_per_s = 3350 * GB,         /* S15, S16 */
	.fp16_flops_per_s = 989.4 * TFLOPS,      /* S15 */
	.fp8_flops_per_s = 1979 * TFLOPS,        /* S17 */
	.int8_ops_per_s = 1979 * TFLOPS,         /* S1, S17 */
	.link_bytes_per_s = 359 * GB,            /* fit: NCCL busBW, H100 DGX, NVLink4 (S29) */
	.interconnect = "NVLink4 900 GB/s",
	.tdp_w = 700,                            /* S15, S17 */
	.mfu = MFU_H100, .mbu = MBU_H100,        /* calibrated: S56 */
	.mfu_8bit = MFU_8BIT_H100,            /* fit: fp8 rows (see above) */
	.attn_eff = ATTN_HOPPER,                 /* FlashAttention-2 on H100 (S77) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_H100_NS, .allreduce_latency_ns = ALLREDUCE_H100_NS,
	.price_on_demand_usd_per_h = 4.76,       /* S37: RunPod H100 SXM, Mar 2026 */
	.price_spot_usd_per_h = 2.69,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(4.76),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S15 glennklockwood.com H100; S16 gpu.blog / awesomeagents.ai; "
		"S17 pricegpu.pages.dev H100 vs A100",
	.notes = MEM_TORCH
		"MFU/MBU calibrated on Vidur H100 profiles (S56); some tools use "
		"3.0-3.07 TB/s; all-reduce floor is TP4/8 (~7 us at TP2, S29); other "
		"on-demand anchors: tier-2 clouds 2.49-2.85 (S43), AWS ~3.90 after the "
		"June-2025 cut (S33), 12.29 before (S31); overheads are estimates",
},
{
	.id = "h100-pcie",
	.aliases = "h100-pcie-80g,h100-pcie-80gb",
	.display_name = "NVIDIA H100 PCIe 80GB",
	.mem_bytes = 80 * GB,                    /* S1; marketing GB (MEM_KEPT) */
	.mem_bw_bytes_per_s = 2000 * GB,         /* S18: >2,000 GB/s (LLM-Viewer 2048) */
	.fp16_flops_per_s = 756 * TFLOPS,        /* S1: 1513 sparse / 2 */
	.fp8_flops_per_s = 1513 * TFLOPS,        /* S1 */
	.int8_ops_per_s = 1513 * TFLOPS,         /* S1 */
	.link_bytes_per_s = 64 * GB,             /* S15: PCIe 5.0 x16 per direction (bridge pairs only) */
	.interconnect = "PCIe 5.0 x16",
	.tdp_w = 350,                            /* S18: 300-350 configurable */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.attn_eff = ATTN_HOPPER,                 /* FlashAttention-2 on H100 (S77) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 3.51,       /* S37: RunPod H100 PCIe, Mar 2026 */
	.price_spot_usd_per_h = 1.99,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(3.51),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S18 H100 PCIe product "
		"brief PB-11133-001",
	.notes = MEM_KEPT
		"memory bandwidth ~2000 GB/s (LLM-Viewer uses 2048); optional NVLink "
		"bridge (600 GB/s) joins pairs only; " UNCAL,
},
{
	.id = "h200",
	.aliases = "h200-sxm,h200-141g,h200-141gb,h200-sxm-141gb",
	.display_name = "NVIDIA H200 SXM 141GB",
	.mem_bytes = 141 * GB,                   /* S19; marketing GB (MEM_KEPT) */
	.mem_bw_bytes_per_s = 4800 * GB,         /* S20 */
	.fp16_flops_per_s = 989.4 * TFLOPS,      /* S1, S24 */
	.fp8_flops_per_s = 1978.9 * TFLOPS,      /* S24 */
	.int8_ops_per_s = 1979 * TFLOPS,         /* S1 */
	.link_bytes_per_s = 359 * GB,            /* fit on H100 DGX (S29); same NVLink4 (S19) */
	.interconnect = "NVLink4 900 GB/s",
	.tdp_w = 700,                            /* S19: TGP */
	.mfu = MFU_H100, .mbu = MBU_H200,        /* H100 calibration, same GH100 */
	.mfu_8bit = MFU_8BIT_H100,            /* fit: fp8 rows (see above) */
	.attn_eff = ATTN_HOPPER,                 /* FlashAttention-2 on H100 (S77) */
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_H100_NS, .allreduce_latency_ns = ALLREDUCE_H100_NS,
	.price_on_demand_usd_per_h = 6.35,       /* S37: RunPod, Mar 2026 */
	.price_spot_usd_per_h = 3.59,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(6.35),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer hardware_params.py; S19 MLCommons inference "
		"v4.1 H200 system JSON; S20 LLM-Viewer H200 entry; S24 MI300X-vs-H200 report",
	.notes = MEM_KEPT
		"uncalibrated: H100-derived efficiencies (same GH100 silicon, S56); "
		"AWS Capacity Blocks p5e 5.408/GPU-h (S35); overheads are estimates",
},
{
	.id = "b200",
	.aliases = "b200-sxm,hgx-b200,b200-180g,b200-180gb",
	.display_name = "NVIDIA B200 (HGX)",
	/* cudaDeviceProp totalGlobalMem (= torch total_memory) "178.35 GB" in
	 * units of 2^30 (the same listing prints 48 KiB of shared memory as
	 * "48.00 KB"), NVIDIA B200, pytorch/ao PR #4002 (2026-03-05).  Was 180 GB
	 * usable (S21, S22; 192 marketing). */
	.mem_bytes = 178.35 * GIB,
	.mem_bw_bytes_per_s = 8000 * GB,         /* S21, S23 */
	.fp16_flops_per_s = 2250 * TFLOPS,       /* S21: 4500 sparse */
	.fp8_flops_per_s = 4500 * TFLOPS,        /* S21 */
	.int8_ops_per_s = 4500 * TFLOPS,         /* S1 */
	.link_bytes_per_s = 900 * GB,            /* S23: NVLink5 1.8 TB/s total = 900 each way */
	.interconnect = "NVLink5 1800 GB/s",
	.tdp_w = 1000,                           /* S21, S22: TGP */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_H100_NS, .allreduce_latency_ns = ALLREDUCE_H100_NS,
	.price_on_demand_usd_per_h = 10.57,      /* S37: RunPod, Mar 2026 */
	.price_spot_usd_per_h = 5.98,            /* S37 */
	.price_monthly_usd = MONTHLY_USD(10.57),
	.price_date = "2026-03", .price_source = RUNPOD,
	.spec_source = "S1 LLM-Viewer; S21 glennklockwood.com B200; S22 MLCommons v6.0 "
		"Nebius B200 JSON; S23 docs.vultr.com HGX B200 overview",
	.notes = MEM_TORCH
		"per-layer and all-reduce floors borrowed from H100; " UNCAL,
},
{
	.id = "mi300x",
	.aliases = "mi300,amd-mi300x,instinct-mi300x,mi300x-192g,mi300x-192gb",
	.display_name = "AMD Instinct MI300X",
	.mem_bytes = 192 * GB,                   /* S25; marketing GB (MEM_KEPT) */
	.mem_bw_bytes_per_s = 5300 * GB,         /* S25 */
	.fp16_flops_per_s = 1307.4 * TFLOPS,     /* S24: BF16 dense */
	.fp8_flops_per_s = 2614.9 * TFLOPS,      /* S24 */
	.int8_ops_per_s = 2614.9 * TFLOPS,       /* S1 */
	.link_bytes_per_s = 448 * GB,            /* S25: xGMI 896 aggregate = 448 each way */
	.interconnect = "Infinity Fabric 896 GB/s",
	.tdp_w = 750,                            /* S25 */
	.mfu = MFU_DEFAULT, .mbu = MBU_MI300X,   
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_MI300X_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_MI300X_NS,
	.price_on_demand_usd_per_h = 0,          /* no anchor in the references */
	.price_spot_usd_per_h = 0,
	.price_monthly_usd = 0,
	.price_date = "", .price_source = "none found",
	.spec_source = "S1 LLM-Viewer hardware_params.py; S24 alpharomercoma/"
		"MI300X-vs-H200 REPORT.md; S25 gpu.blog / jaredwatkins.com MI300X",
	.notes = MEM_KEPT
		"no price anchor: prices are 0; xGMI bandwidth is the 8-GPU mesh "
		"aggregate; " UNCAL,
},
{
	.id = "ascend-910b",
	.aliases = "910b,ascend910b,ascend-910b2,ascend910b2,huawei-ascend-910b",
	.display_name = "Huawei Ascend 910B (910B2)",
	/* torch_npu total capacity: "NPU 3; 60.96 GiB total capacity", 910B2
	 * (64GB), vllm-project/vllm-ascend issue #1127 (2025-06-09).
	 * Marketing: 64 GB HBM2e (S26, S27). */
	.mem_bytes = 60.96 * GIB,
	.mem_bw_bytes_per_s = 1600 * GB,         /* S26: LOW CONFIDENCE (0.4-1.6 TB/s quoted) */
	.fp16_flops_per_s = 353.8 * TFLOPS,      /* S26: 910B2 cube FP16 */
	.fp8_flops_per_s = 0,                    /* S26: no FP8 */
	.int8_ops_per_s = 707.9 * TFLOPS,        /* S26 */
	.link_bytes_per_s = 98 * GB,             /* S26: HCCS 196 intra-node = 98 each way (others quote 392) */
	.interconnect = "HCCS 196 GB/s",
	.tdp_w = 400,                            /* S27 et al.: ~310-400, low confidence */
	.mfu = MFU_DEFAULT, .mbu = MBU_DEFAULT,
	.iteration_overhead_ns = ITER_DEFAULT_NS, .per_seq_overhead_ns = SEQ_DEFAULT_NS,
	.layer_overhead_ns = LAYER_DEFAULT_NS, .allreduce_latency_ns = ALLREDUCE_DEFAULT_NS,
	.price_on_demand_usd_per_h = 0,          /* no anchor: AutoDL/Chinese clouds not found */
	.price_spot_usd_per_h = 0,
	.price_monthly_usd = 0,
	.price_date = "", .price_source = "none found (Chinese cloud prices not found)",
	.spec_source = "S26 public perf-model HWConf (ASCEND910B2); S27 boardor.com, "
		"vengineer.hatenablog.com; S28 gameofdimension/limulidae benchmarks",
	.notes = MEM_TORCH
		"LOW CONFIDENCE: public figures disagree (HBM 0.4-1.6 TB/s; FP16 "
		"245.7-353.8 by variant, ~320 often quoted; measured BF16 GEMM 328 "
		"TFLOPS, S28; intra-node all_reduce measured only 18-72 GB/s, S28); "
		"TDP ~310-400 W third-party; no price anchor: prices are 0; " UNCAL,
},
};

size_t fs_catalog_n_gpus(void)
{
	return sizeof gpus / sizeof gpus[0];
}

const struct fs_gpu_spec *fs_catalog_gpu_at(size_t i)
{
	assert(i < fs_catalog_n_gpus());
	return &gpus[i];
}
