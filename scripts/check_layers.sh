#!/bin/sh
# check_layers.sh — the layer rule of docs/ARCHITECTURE.md: every
# `#include "..."` of src/*.c, src/*.h and include/fleetsim/*.h names a file
# of its own or a lower layer.  Each file's layer comes from the table between
# the layers:begin and layers:end markers of docs/ARCHITECTURE.md (names or
# shell globs, an exact name beats a glob); a file the table does not place, a
# glob clash, an upward include not listed below and a listed exception that
# no longer occurs are all errors, printed as file:line and exit status 1.
# Usage: scripts/check_layers.sh [--list]   (--list: print "layer file" only)
set -eu
cd "$(dirname "$0")/.."

# Known upward includes: "file included-name reason".  Each has a TODO entry
# in docs/ARCHITECTURE.md; delete the line here when the include is gone.
EXCEPTIONS='
'

mode=check
[ "${1:-}" = --list ] && mode=list

# shellcheck disable=SC2046
awk -v mode="$mode" -v doc=docs/ARCHITECTURE.md -v exceptions="$EXCEPTIONS" '
function fail(msg) { print msg > "/dev/stderr"; bad++ }
function glob_re(g,    r) {
	r = g
	gsub(/\./, "\\.", r); gsub(/\*/, "[^/]*", r); gsub(/\?/, "[^/]", r)
	return "^" r "$"
}
function base_of(p) { sub(/.*\//, "", p); return p }
# layer_of NAME: the layer rank of a file name, -1 when the table does not
# place it, -2 when two globs of different layers place it.
function layer_of(n,    i, r) {
	if (n in exact) return exact[n]
	r = -1
	for (i = 1; i <= nglob; i++)
		if (n ~ globre[i]) {
			if (r >= 0 && r != globrank[i]) return -2
			r = globrank[i]
		}
	return r
}
BEGIN {
	n = split(exceptions, ex, "\n")
	for (i = 1; i <= n; i++) {
		if (ex[i] == "") continue
		split(ex[i], w, " ")
		allowed[w[1] " " w[2]] = 1
	}
}
FILENAME == doc {
	if ($0 ~ /<!-- layers:begin -->/) { intable = 1; next }
	if ($0 ~ /<!-- layers:end -->/) { intable = 0; next }
	if (!intable || $0 !~ /^\| *[0-9]+ *\|/) next
	split($0, col, "|")
	rank = col[2] + 0; nm = col[3]; gsub(/[ `*]/, "", nm); name[rank] = nm
	files = col[4]; gsub(/`/, " ", files); gsub(/,/, " ", files)
	k = split(files, f, " ")
	for (i = 1; i <= k; i++) {
		if (f[i] ~ /[*?[]/) { nglob++; globre[nglob] = glob_re(f[i]); globrank[nglob] = rank }
		else if (f[i] in exact) fail(doc ": " f[i] " is in two rows of the layer table")
		else exact[f[i]] = rank
	}
	next
}
FNR == 1 { me = layer_of(base_of(FILENAME)) }
mode == "check" && me >= 0 && /^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	it = layer_of(base_of(inc))
	if (it < 0) { fail(FILENAME ":" FNR ": includes \"" inc "\", which the layer table does not place"); next }
	if (it <= me) next
	key = FILENAME " " inc
	if (key in allowed) { if (!(key in used)) nused++; used[key] = 1; next }
	fail(FILENAME ":" FNR ": " name[me] " includes \"" inc "\" of the higher layer " name[it])
}
END {
	# Placement is checked here, over the arguments, so that an empty file
	# (which the main loop never sees) is checked too.
	for (i = 2; i < ARGC; i++) {
		nfiles++
		r = layer_of(base_of(ARGV[i]))
		if (r == -1) fail(ARGV[i] ":1: not placed in the layer table of " doc)
		if (r == -2) fail(ARGV[i] ":1: placed by two globs of different layers in " doc "; list it by name")
		if (mode == "list" && r >= 0) printf "%-8s %s\n", name[r], ARGV[i]
	}
	if (mode != "check") exit (bad > 0)
	for (k in allowed)
		if (!(k in used)) fail("scripts/check_layers.sh: exception \"" k "\" no longer occurs; delete it")
	if (bad) { printf "check-layers: %d problem(s)\n", bad > "/dev/stderr"; exit 1 }
	printf "check-layers: %d files, every include within its layer or below (%d known exception(s))\n", nfiles, nused
}
' docs/ARCHITECTURE.md $(ls src/*.c src/*.h include/fleetsim/*.h)
