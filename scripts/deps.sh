#!/bin/sh
# deps.sh — make sure the Debian packages fleetsim builds and tests with are
# installed.  Installs what is missing when run as root; otherwise prints the
# exact apt-get line and fails.  Usage: scripts/deps.sh [extra-package ...]
# The extra name "fuzz" stands for what `make fuzz` needs: clang, its
# libFuzzer and sanitizer runtimes (libclang-rt-14-dev) and its OpenMP
# runtime (libomp-dev), as Debian 12 packages them.
set -eu

missing=""
need_pkg() {   # need_pkg DEBIAN-PACKAGE TEST-COMMAND...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then
		missing="$missing $pkg"
	fi
}

need_pkg pkg-config     command -v pkg-config
need_pkg gcc            command -v gcc
need_pkg make           command -v make
need_pkg libgsl-dev     pkg-config --exists gsl
need_pkg libcjson-dev   pkg-config --exists libcjson
need_pkg libcmocka-dev  pkg-config --exists cmocka
need_pkg gnuplot-nox    command -v gnuplot
for extra in "$@"; do
	if [ "$extra" = fuzz ]; then
		need_pkg clang              command -v clang
		need_pkg libclang-rt-14-dev dpkg -s libclang-rt-14-dev
		need_pkg libomp-dev         dpkg -s libomp-dev
		continue
	fi
	need_pkg "$extra" dpkg -s "$extra"
done

[ -z "$missing" ] && exit 0

line="apt-get update && apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "fleetsim: missing Debian packages:$missing" >&2
	echo "fleetsim: as root, run:  $line" >&2
	exit 1
fi
echo "fleetsim: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
