#!/bin/sh
# check_install.sh - `make check-install`: install into a fresh temporary
# DESTDIR with PREFIX=/usr and check the installed tree: every listed file
# is there; the installed library has no link-time-optimisation sections;
# the installed binary runs an installed example scenario (with
# the installed plot style found beside it); `man -l` renders the page;
# examples/embed.c builds with `pkg-config --cflags --libs fleetsim` against
# the installed library and runs; `make uninstall` leaves nothing behind.
# Runs from the repository root; MAKE may name the make program.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }
ok() { echo "check-install: ok: $*"; }

$MAKE --no-print-directory install DESTDIR="$dest" PREFIX=/usr >/dev/null
root=$dest/usr
for f in bin/fleetsim lib/libfleetsim.a lib/pkgconfig/fleetsim.pc \
	share/man/man1/fleetsim.1 share/fleetsim/plots/style.gp \
	share/fleetsim/scenario.schema.json share/fleetsim/examples/embed.c \
	share/bash-completion/completions/fleetsim \
	share/fleetsim/scenarios/quickstart.json; do
	[ -f "$root/$f" ] || fail "missing /usr/$f"
done
for h in include/fleetsim/*.h; do
	cmp -s "$h" "$root/$h" || fail "header $h not installed"
done
for s in scenarios/*.json; do
	[ -f "$root/share/fleetsim/$s" ] || fail "example $s not installed"
done
ok "$(find "$dest" -type f | wc -l) files under DESTDIR/usr"
# The installed library is plain machine code: no link-time-optimisation
# sections, which only the compiler that wrote them could read.
if command -v objdump >/dev/null 2>&1; then
	objdump -h "$root/lib/libfleetsim.a" | grep -q '\.gnu\.lto_' \
		&& fail "the installed libfleetsim.a carries .gnu.lto_ sections"
	ok "the installed libfleetsim.a has no link-time-optimisation sections"
fi

# The installed binary on an installed example, from an unrelated directory.
work=$dest/work
mkdir -p "$work"
(cd "$work" && "$root/bin/fleetsim" --version) | grep -q "^fleetsim $(cat VERSION)$" \
	|| fail "--version is not $(cat VERSION)"
qs=$root/share/fleetsim/scenarios/quickstart.json
(cd "$work" && "$root/bin/fleetsim" validate "$qs" >/dev/null) \
	|| fail "installed fleetsim validate of installed quickstart.json"
(cd "$work" && "$root/bin/fleetsim" run "$qs" -r 2 -j 2 -q -o "$work/qs") \
	|| fail "installed fleetsim run of installed quickstart.json"
[ -s "$work/qs/summary.json" ] || fail "no summary.json from the installed run"
(cd "$work" && "$root/bin/fleetsim" run "$root/share/fleetsim/scenarios/azure-code-replay.json" \
	-r 1 -q -o "$work/az") || fail "installed example with an installed trace"
ok "installed fleetsim validated and ran installed quickstart.json and azure-code-replay.json"

# The man page renders without warnings.
if command -v man >/dev/null 2>&1; then
	out=$(MANWIDTH=80 man -l "$root/share/man/man1/fleetsim.1" 2>&1 >/dev/null) \
		|| fail "man -l failed: $out"
	[ -z "$out" ] || fail "man -l warned: $out"
	MANWIDTH=80 man -l "$root/share/man/man1/fleetsim.1" 2>/dev/null | grep -q "^COMMANDS" \
		|| fail "man -l rendered no COMMANDS section"
	ok "man -l renders fleetsim(1)"
else
	echo "check-install: man not found: man page rendering not checked"
fi

# The example against the installed library, through pkg-config: the .pc
# under DESTDIR, its prefix redefined to where it lies.
pcflags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --define-prefix \
	--cflags --libs fleetsim) || fail "pkg-config --cflags --libs fleetsim"
case $pcflags in *"-I$root/include"*"-L$root/lib"*|*"-L$root/lib"*"-I$root/include"*) ;;
	*) fail "pkg-config flags do not point into DESTDIR: $pcflags" ;; esac
${CC:-cc} -std=c11 -Wall -Wextra -o "$work/embed" "$root/share/fleetsim/examples/embed.c" \
	$pcflags || fail "embed.c does not build with: $pcflags"
"$work/embed" "$qs" 2 1 > "$work/embed.txt" || fail "embed failed"
cat "$work/embed.txt"
# Its figures are the binary's (same seed, 2 replications, any threads):
# quickstart bills 2 x L40S on demand for the 1 h horizon at 1.40/h = 2.80.
grep -q "^total cost  *2.8000 USD" "$work/embed.txt" || fail "embed: total cost is not 2.80 USD"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$work/qs/summary.json" "$work/embed.txt" <<'PY' || fail "embed p99 TTFT differs from the binary's summary.json"
import json, sys
want = json.load(open(sys.argv[1]))["metrics"]["all"]["ttft_ms"]["p99"]["value"]
got = [float(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("p99 TTFT")][0]
print("check-install: p99 TTFT embed %.4f ms, summary.json %.9g ms" % (got, want))
sys.exit(0 if abs(got - want) <= 1e-6 * abs(want) + 1e-4 else 1)
PY
fi
$MAKE --no-print-directory examples DESTDIR="$dest" PREFIX=/usr >/dev/null \
	|| fail "make examples against DESTDIR"
ok "embed.c built with pkg-config ($pcflags) and ran"

# Uninstall removes every file it installed.
$MAKE --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null
left=$(find "$root" -type f | grep -v "^$work/" || true)
[ -z "$left" ] || fail "left after uninstall: $left"
ok "make uninstall removed everything"
echo "check-install: all checks passed"
