#!/bin/sh
# Regenerates docs/data/points_kernel.csv from Microsoft Vidur's operator profiles.
# Reads mlp.csv and all_reduce.csv under VIDUR_DIR/data/profiling (a checkout of
# microsoft/vidur) and writes the rows, with their comment header, to standard output.
# Columns are found by header name, so column order in the inputs does not matter.
# Usage: sh docs/data/extract_points_kernel.sh VIDUR_DIR [COMMIT] > docs/data/points_kernel.csv
set -eu

if [ $# -lt 1 ] || [ ! -d "$1/data/profiling" ]; then
	echo "usage: $0 VIDUR_DIR [COMMIT]  (VIDUR_DIR holds data/profiling)" >&2
	exit 2
fi
dir=$1
commit=${2:-7d47513363ec447a741ac5e47241580b47724fbf}

cat <<EOF
# Kernel-level step-time measurements from Microsoft Vidur (MLSys'24) operator profiles,
# read at microsoft/vidur@$commit; regenerate with docs/data/extract_points_kernel.sh.
# All fp16; measured_ms is whole-model time (per-layer median ms x layers) except
# allreduce (one NCCL call).  Derivations and column definitions: docs/data/POINTS_KERNEL.md.
# Unused numeric fields are 0; model is '-' for allreduce (model-independent).
# attn_prefill/attn_decode are absent: Vidur's attention.csv files are not retrievable.
id,source,citation,gpu,model,tp,weight_dtype,kv_dtype,kind,tokens,batch,context,bytes,measured_ms,derivation
EOF

# mlp GPUDIR GPU HFID MODEL TAG LAYERS N_EMBD KIND "TPS" "TOKENS"
# One row per (tp, tokens), tp-major, in the order given.
mlp() {
	path=data/profiling/compute/$1/meta-llama/$3/mlp.csv
	awk -F, -v gpu="$2" -v hf="$3" -v model="$4" -v tag="$5" -v layers="$6" \
	    -v embd="$7" -v kind="$8" -v tps="$9" -v toks="${10}" \
	    -v cite="microsoft/vidur@$commit:$path" '
	function col(name) {
		if (!(name in c)) { print "missing column " name > "/dev/stderr"; exit 1 }
		return c[name]
	}
	function med(op) { return $col("time_stats." op ".median") + 0 }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		if ($col("n_embd") != embd) { print hf ": n_embd " $col("n_embd") > "/dev/stderr"; exit 1 }
		k = $col("num_tensor_parallel_workers") + 0 " " $col("num_tokens") + 0
		if (kind == "gemm")
			v = med("attn_pre_proj") + med("attn_post_proj") + med("mlp_up_proj") + med("mlp_down_proj")
		else
			v = med("input_layernorm") + med("attn_rope") + med("post_attention_layernorm") \
			    + med("mlp_act") + med("add")
		sum[k] += v; cnt[k]++
	}
	END {
		if (kind == "gemm")
			what = "sum of median attn_pre_proj+attn_post_proj+mlp_up_proj+mlp_down_proj"
		else
			what = "sum of median input_layernorm+attn_rope+post_attention_layernorm+mlp_act+add (add once per layer)"
		same = (hf ~ /^Meta-Llama-3/) ? "; " hf " profile (same shapes as " model ")" : ""
		nt = split(tps, tp, " "); nk = split(toks, tk, " ")
		for (i = 1; i <= nt; i++) for (j = 1; j <= nk; j++) {
			k = tp[i] " " tk[j]
			if (!(k in cnt)) { print hf ": no row for tp/tokens " k > "/dev/stderr"; exit 1 }
			dup = (cnt[k] > 1) ? "; mean of " cnt[k] " profiled rows" : ""
			printf "vidur-%s-%s-%s-tp%d-t%d,vidur,%s,%s,%s,%d,fp16,fp16,%s,%d,0,0,0,%.6g,%s per layer x %d layers%s%s\n", \
			    kind, gpu == "a100-80g" ? "a100" : gpu, tag, tp[i], tk[j], cite, gpu, model, \
			    tp[i], kind, tk[j], layers * sum[k] / cnt[k], what, layers, dup, same
		}
	}' "$dir/$path"
}

# allreduce NETDIR GPU "TPS" "TARGET_BYTES"
# For each TP and target size, the nearest profiled size (num_workers = devices_per_node = TP).
allreduce() {
	path=data/profiling/network/$1/all_reduce.csv
	awk -F, -v gpu="$2" -v net="$1" -v tps="$3" -v sizes="$4" \
	    -v cite="microsoft/vidur@$commit:$path" '
	function col(name) {
		if (!(name in c)) { print "missing column " name > "/dev/stderr"; exit 1 }
		return c[name]
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$col("collective") == "all_reduce" && $col("num_workers") == $col("devices_per_node") {
		k = $col("num_workers") + 0 " " $col("size") + 0
		sum[k] += $col("time_stats.all_reduce.median"); cnt[k]++
		have[$col("num_workers") + 0] = have[$col("num_workers") + 0] " " $col("size") + 0
	}
	END {
		nt = split(tps, tp, " "); ns = split(sizes, want, " ")
		for (i = 1; i <= nt; i++) {
			na = split(have[tp[i]], avail, " ")
			if (na == 0) { print net ": no tp " tp[i] > "/dev/stderr"; exit 1 }
			for (j = 1; j <= ns; j++) {
				best = avail[1]
				for (a = 2; a <= na; a++) {
					d = avail[a] - want[j]; db = best - want[j]
					if (d * d < db * db) best = avail[a]
				}
				k = tp[i] " " best
				dup = (cnt[k] > 1) ? "; mean of " cnt[k] " profiled rows" : ""
				printf "vidur-allreduce-%s-tp%d-b%d,vidur,%s,%s,-,%d,fp16,fp16,allreduce,0,0,0,%d,%.6g,time_stats.all_reduce.median of rank 0; %s; num_workers=devices_per_node=%d; size column = bytes%s\n", \
				    gpu == "a100-80g" ? "a100" : gpu, tp[i], best, cite, gpu, tp[i], best, \
				    sum[k] / cnt[k], net, tp[i], dup
			}
		}
	}' "$dir/$path"
}

all_tok="1 8 32 64 128 256 512 1024 2048 4096"
sub_tok="1 128 512 4096"
ew_tok="1 128 1024 4096"

# kind gemm: every token count at TP1 for Llama-2 7B/70B on both GPUs; a subset elsewhere.
for g in a100:a100-80g h100:h100; do
	gd=${g%%:*}; gi=${g#*:}
	mlp "$gd" "$gi" Llama-2-7b-hf llama-2-7b l2-7b 32 4096 gemm "1" "$all_tok"
	mlp "$gd" "$gi" Llama-2-70b-hf llama-2-70b l2-70b 80 8192 gemm "1" "$all_tok"
	mlp "$gd" "$gi" Llama-2-70b-hf llama-2-70b l2-70b 80 8192 gemm "2 4 8" "$sub_tok"
done
mlp a100 a100-80g Meta-Llama-3-8B llama-3.1-8b l31-8b 32 4096 gemm "1" "$sub_tok"
mlp a100 a100-80g Meta-Llama-3-70B llama-3.1-70b l31-70b 80 8192 gemm "1" "$sub_tok"

# kind elementwise: four token counts, 7B at TP1 and 70B at TP1 and TP8.
for g in a100:a100-80g h100:h100; do
	gd=${g%%:*}; gi=${g#*:}
	mlp "$gd" "$gi" Llama-2-7b-hf llama-2-7b l2-7b 32 4096 elementwise "1" "$ew_tok"
	mlp "$gd" "$gi" Llama-2-70b-hf llama-2-70b l2-70b 80 8192 elementwise "1 8" "$ew_tok"
done

# kind allreduce: DGX nodes, ~16 KiB to 64 MiB (the largest size profiled).
ar_bytes="16384 262144 1048576 4194304 16777216 67108864"
allreduce a100_dgx a100-80g "2 4 8" "$ar_bytes"
allreduce h100_dgx h100 "2 4 8" "$ar_bytes"
