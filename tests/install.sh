#!/usr/bin/env bash
# install.sh - building against surand the two ways a user does: from the tree
# with the uninstalled pkg-config file ($BUILD/surand-uninstalled.pc), and from
# an installed tree (make install DESTDIR=... PREFIX=/opt/x after a plain
# make: the installed surand.pc must say /opt/x).  Also: the install log
# names the DESTDIR paths it writes, and make uninstall removes every file.
# And what a packager passes: LIBDIR/PRELOADDIR/SBINDIR put every file where
# they say, and CPPFLAGS/CFLAGS/LDFLAGS reach every shipped compile and link.
# Prints PASS/FAIL/SKIP lines (tests/harness.h).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
# make install rewrites $BUILD/surand.pc for its PREFIX: put back the one the
# user's last make wrote.
old_prefix=$(cat "$BUILD/config/prefix" 2>/dev/null || echo /usr/local)
cleanup() {
	make -s -C "$top" BUILD="$BUILD" PREFIX="$old_prefix" "$BUILD/surand.pc" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

pass() { echo "PASS install/$1"; }
fail() { echo "FAIL install/$1: $2"; }
skip() {
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ]; then
		echo "FAIL install/$1: skipped under SURAND_REQUIRE_ALL=1: $2"
	else
		echo "SKIP install/$1: $2"
	fi
}
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }

if ! command -v pkg-config >/dev/null; then
	skip all "pkg-config not installed (apt-get install pkg-config)"
	exit 0
fi
CC=${CC:-cc}
# A program that uses the shared library and prints 16 random bytes in hex.
cat > "$tmp/app.c" <<'EOF'
#include <stdio.h>
#include <surand.h>
int main(void)
{
	unsigned char b[16];
	surand_bytes(b, sizeof(b));
	for (unsigned i = 0; i < sizeof(b); i++)
		printf("%02x", b[i]);
	printf("\n");
	return 0;
}
EOF
hex32='^[0-9a-f]{32}$'

# ---- from the tree: the uninstalled .pc ---------------------------------------
make -s -C "$top" BUILD="$BUILD" >"$tmp/make.log" 2>&1 || { fail build "make: $(tail -3 "$tmp/make.log")"; exit 0; }
pc=$BUILD/surand-uninstalled.pc
if [ -f "$pc" ]; then
	flags=$(PKG_CONFIG_PATH="$top/$BUILD" pkg-config --cflags --libs surand-uninstalled 2>&1)
	# shellcheck disable=SC2086
	if $CC "$tmp/app.c" -o "$tmp/app-tree" $flags 2>"$tmp/cc.err"; then
		out=$("$tmp/app-tree" 2>&1)
		lib=$(ldd "$tmp/app-tree" | awk '/libsurand\.so/{print $3}')
		check uninstalled_pc_builds_and_runs \
			"$(grep -Eq "$hex32" <<<"$out" && [ "$(readlink -f "$lib")" = "$(readlink -f "$top/$BUILD/libsurand.so.1")" ]; echo $?)" \
			"output '$out', libsurand from '$lib'"
	else
		fail uninstalled_pc_builds_and_runs "cc $flags: $(head -3 "$tmp/cc.err")"
	fi
	# pkg-config's convention: asking for "surand" with the tree on the path
	# finds the uninstalled file first
	inc=$(PKG_CONFIG_PATH="$top/$BUILD" pkg-config --cflags surand | sed "s/ *$//")
	check uninstalled_pc_preferred "$([ "$inc" = "-I$top/include" ]; echo $?)" "cflags '$inc'"
else
	fail uninstalled_pc_builds_and_runs "$pc missing after make"
fi

# ---- installed: make install PREFIX=/opt/x DESTDIR=... after a plain make ------
dest=$tmp/dest
if make -C "$top" BUILD="$BUILD" install PREFIX=/opt/x DESTDIR="$dest" >"$tmp/inst.log" 2>&1; then
	pcf=$dest/opt/x/lib/pkgconfig/surand.pc
	pfx=$(sed -n 's/^prefix=//p' "$pcf" 2>/dev/null)
	check installed_pc_prefix "$([ "$pfx" = /opt/x ]; echo $?)" "installed surand.pc says prefix='$pfx'"
	# every file the log names is under DESTDIR, and the log names the header's path
	check install_log_destdir_paths "$(grep -qF "$dest/opt/x/include/" "$tmp/inst.log" && \
		grep -qF "$dest/opt/x/share/man/man1/" "$tmp/inst.log" && \
		grep -q 'staged under' "$tmp/inst.log"; echo $?)" "log: $(grep -m3 install "$tmp/inst.log")"
	missing=
	for f in lib/libsurand.so lib/libsurand.so.1 lib/libsurand.a lib/libsurand-preload.so \
		include/surand.h bin/surand share/man/man1/surand.1 share/man/man3/surand.3 \
		share/man/man7/surand-preload.7; do
		[ -e "$dest/opt/x/$f" ] || missing="$missing $f"
	done
	check install_files "$([ -z "$missing" ]; echo $?)" "missing:$missing"
	# build against the installed tree (the sysroot maps /opt/x to $dest/opt/x)
	flags=$(PKG_CONFIG_LIBDIR="$dest/opt/x/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" \
		pkg-config --cflags --libs surand 2>&1)
	# shellcheck disable=SC2086
	if $CC "$tmp/app.c" -o "$tmp/app-inst" $flags 2>"$tmp/cc.err"; then
		out=$(LD_LIBRARY_PATH="$dest/opt/x/lib" "$tmp/app-inst" 2>&1)
		lib=$(LD_LIBRARY_PATH="$dest/opt/x/lib" ldd "$tmp/app-inst" | awk '/libsurand\.so/{print $3}')
		check installed_pc_builds_and_runs \
			"$(grep -Eq "$hex32" <<<"$out" && [[ "$lib" == "$dest/opt/x/lib/"* ]]; echo $?)" \
			"flags '$flags', output '$out', libsurand from '$lib'"
	else
		fail installed_pc_builds_and_runs "cc $flags: $(head -3 "$tmp/cc.err")"
	fi
	# the installed command finds the installed preload (../lib from bin/)
	lp=$("$dest/opt/x/bin/surand" run sh -c 'printf %s "$LD_PRELOAD"' 2>&1)
	check installed_run_finds_preload "$([ "$lp" = "$dest/opt/x/lib/libsurand-preload.so" ]; echo $?)" \
		"LD_PRELOAD '$lp'"
	# a second install with another PREFIX rewrites the .pc again
	make -s -C "$top" BUILD="$BUILD" install PREFIX=/usr DESTDIR="$dest" >/dev/null 2>&1
	pfx=$(sed -n 's/^prefix=//p' "$dest/usr/lib/pkgconfig/surand.pc" 2>/dev/null)
	check installed_pc_follows_prefix "$([ "$pfx" = /usr ]; echo $?)" "prefix '$pfx' after PREFIX=/usr"
	# uninstall leaves no file (only empty directories)
	make -s -C "$top" BUILD="$BUILD" uninstall PREFIX=/opt/x DESTDIR="$dest" >"$tmp/un.log" 2>&1
	left=$(find "$dest/opt/x" ! -type d | sed "s|$dest||")
	check uninstall_removes_all "$([ -z "$left" ] && grep -qF "rm -f $dest/opt/x/bin/surand" "$tmp/un.log"; echo $?)" \
		"left: $(echo $left | head -c 300); log: $(head -c 200 "$tmp/un.log")"
else
	fail installed_pc_prefix "make install failed: $(tail -3 "$tmp/inst.log")"
fi

# ---- what a packager passes: directories and flags -----------------------------
ma=$($CC -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
pk=$tmp/pkgroot
if make -s -C "$top" BUILD="$BUILD" install PREFIX=/usr SBINDIR=/usr/sbin LIBDIR="/usr/lib/$ma" \
	PRELOADDIR="/usr/lib/$ma/surand" DESTDIR="$pk" >"$tmp/pk.log" 2>&1; then
	missing=""
	for f in "usr/lib/$ma/libsurand.so.1" "usr/lib/$ma/libsurand.a" "usr/lib/$ma/pkgconfig/surand.pc" \
		"usr/lib/$ma/surand/libsurand-preload.so" usr/include/surand.h usr/bin/surand \
		usr/share/man/man3/surand.3; do
		[ -e "$pk/$f" ] || missing="$missing $f"
	done
	[ -e "$BUILD/surandfs" ] && { [ -e "$pk/usr/sbin/surandfs" ] || missing="$missing usr/sbin/surandfs"; }
	libdir=$(sed -n 's/^libdir=//p' "$pk/usr/lib/$ma/pkgconfig/surand.pc")
	check packager_dirs "$([ -z "$missing" ] && [ "$libdir" = "\${prefix}/lib/$ma" ] &&
		[ ! -e "$pk/usr/lib/libsurand.so.1" ]; echo $?)" "missing:$missing; libdir '$libdir'"
	# the installed command finds the preload in PRELOADDIR (compiled in)
	strings "$pk/usr/bin/surand" | grep -qx "/usr/lib/$ma/surand"
	check packager_preloaddir_compiled_in $? "surand does not name /usr/lib/$ma/surand"
else
	fail packager_dirs "make install with LIBDIR/PRELOADDIR failed: $(tail -3 "$tmp/pk.log")"
fi
# CPPFLAGS/CFLAGS reach every shipped object (library, command, preload,
# surandfs) and LDFLAGS every shipped link (a dry run of a build from scratch).
make -n -B -C "$top" BUILD="$tmp/flags" CPPFLAGS=-DPKG_PROBE_CPP CFLAGS=-DPKG_PROBE_C \
	LDFLAGS=-Wl,--build-id=sha1 all 2>&1 | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$tmp/flags.log"
nc=$(grep -E -- ' -c (src|tools)/' "$tmp/flags.log" | grep -c -v -e -DPKG_PROBE_CPP -e '^$')
nc2=$(grep -E -- ' -c (src|tools)/' "$tmp/flags.log" | grep -c -v -- '-DPKG_PROBE_C\b')
ncomp=$(grep -cE -- ' -c (src|tools)/' "$tmp/flags.log")
nlink=$(grep -E -- "-o $tmp/flags/(libsurand\.so\.[0-9.]+|surand|surandfs|libsurand-preload\.so) " "$tmp/flags.log" |
	grep -c -v -- '-Wl,--build-id=sha1')
check packager_flags_reach_objects "$([ "$ncomp" -gt 40 ] && [ "$nc" = 0 ] && [ "$nc2" = 0 ] && [ "$nlink" = 0 ]; echo $?)" \
	"$ncomp compiles; without CPPFLAGS $nc, without CFLAGS $nc2; links without LDFLAGS $nlink"
exit 0
