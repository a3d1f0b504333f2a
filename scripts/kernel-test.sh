#!/usr/bin/env bash
# kernel-test.sh - builds surand.ko against Debian's 6.1 kernel headers,
# boots that kernel under qemu (TCG, 4 vCPUs, 2 NUMA nodes, preempt=full)
# with an initramfs of busybox, the module and the static test program
# kmod/tests/ktest.c, and reports the guest's results:
#   PASS kernel/<config>/<test> | FAIL kernel/<config>/<test>: why
#   ...
#   N passed, N failed
#
# The kernel image is never installed: `apt-get download` fetches the
# linux-image-6.1.0-N-amd64 package that linux-image-amd64 depends on (the
# same ABI as the installed linux-headers-amd64), `dpkg -x` unpacks it into
# $BUILD/kernel/cache/, and only boot/ is kept.  The ABI name is resolved at
# run time (it changes with Debian updates).
#
# The benchmark part also runs the mixed workload (a careful reader beside
# 0, 1, 2 and 4 x nproc abuser processes) per design and for /dev/urandom.
# Environment: BUILD (default build), KTEST_TIMEOUT (guest seconds, default
# 300), KTEST_THREAD_READS (reads per thread in the 16-thread test, default
# 20000: 100000 takes minutes per design under TCG), KTEST_ONLY=tests|bench (default both), KTEST_KEEP=1 (keep the log),
# KTEST_MODULE=path (test that surand.ko, built for the same ABI, e.g. by DKMS,
# instead of building one from kmod/).
# Exit: 0 all passed, 1 a failure, 77 a prerequisite is missing (one line
# "MISSING: what (apt-get install pkg)" per missing thing on stdout).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
work=$BUILD/kernel
timeout_s=${KTEST_TIMEOUT:-300}
thread_reads=${KTEST_THREAD_READS:-20000}
only=${KTEST_ONLY:-}
mkdir -p "$work" || exit 2
t_start=$SECONDS
# Called from make check: nothing of the calling make may reach the kernel build.
unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES KBUILD_OUTPUT ARCH CROSS_COMPILE

say() { echo "kernel-test: $*" >&2; }
fail_setup() { echo "FAIL kernel/setup: $*"; echo "0 passed, 1 failed"; exit 1; }

# ---- prerequisites ---------------------------------------------------------
missing=0
need() { # command package
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "MISSING: $1 (apt-get install $2)"
	missing=1
}
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need gzip gzip
need gcc build-essential
need apt-get apt
need dpkg-deb dpkg
busybox=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && ! readelf -l "$b" 2>/dev/null | grep -q INTERP; then busybox=$b; break; fi
done
[ -n "$busybox" ] || { echo "MISSING: a static busybox (apt-get install busybox-static)"; missing=1; }
libc_a=$(gcc -print-file-name=libc.a 2>/dev/null)
[ -f "$libc_a" ] || { echo "MISSING: static libc for gcc -static (apt-get install libc6-dev)"; missing=1; }

# The ABI the linux-headers-amd64 meta-package points at, e.g. 6.1.0-57-amd64.
abi=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	grep -o 'linux-headers-6\.1\.0-[0-9]*-amd64' | head -n1 | sed 's/^linux-headers-//')
if [ -z "$abi" ]; then
	abi=$(ls -d /usr/src/linux-headers-6.1.0-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		sort -V | tail -n1)
fi
KDIR=/usr/src/linux-headers-$abi
if [ -z "$abi" ] || [ ! -f "$KDIR/Makefile" ]; then
	echo "MISSING: Debian 6.1 kernel headers (apt-get install linux-headers-amd64)"
	missing=1
fi
[ "$missing" = 0 ] || exit 77
hdr_version=$(dpkg-query -W -f='${Version}' "linux-headers-$abi" 2>/dev/null)
say "kernel ABI $abi (headers $hdr_version), KDIR=$KDIR"

# ---- the kernel image (cached) ----------------------------------------------
cache=$work/cache/$abi
vmlinuz=$cache/boot/vmlinuz-$abi
if [ ! -f "$vmlinuz" ]; then
	dl=$work/download
	rm -rf "$dl" && mkdir -p "$dl" || exit 2
	pkg=linux-image-$abi
	say "fetching $pkg (apt-get download, not installed)"
	if ! (cd "$dl" && { timeout 300 apt-get download -q "$pkg=$hdr_version" ||
		timeout 300 apt-get download -q "$pkg"; }) >"$work/download.log" 2>&1; then
		tail -n 3 "$work/download.log" >&2
		echo "MISSING: $pkg (download failed: apt-get update, network)"
		exit 77
	fi
	deb=$(ls "$dl"/*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || fail_setup "apt-get download left no .deb"
	rm -rf "$dl/x" && dpkg -x "$deb" "$dl/x" || fail_setup "dpkg -x $deb failed"
	[ -f "$dl/x/boot/vmlinuz-$abi" ] || fail_setup "$deb has no boot/vmlinuz-$abi"
	rm -rf "$cache" && mkdir -p "$cache" && mv "$dl/x/boot" "$cache/" || exit 2
	rm -rf "$dl"
fi

# ---- the module and the test program -----------------------------------------
module=$work/kmod/surand.ko
if [ -n "${KTEST_MODULE:-}" ]; then
	# A module built elsewhere (DKMS, for the same kernel ABI): tested as it is.
	module=$KTEST_MODULE
	[ -f "$module" ] || fail_setup "KTEST_MODULE=$module: no such file"
	vermagic=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
	[ "$vermagic" = "$abi" ] || fail_setup "KTEST_MODULE=$module is built for '$vermagic', not $abi"
	say "testing $module (vermagic $vermagic)"
else
	say "building surand.ko"
	if ! timeout 300 make -C kmod KDIR="$KDIR" MODOUT="$work/kmod" >"$work/kbuild.log" 2>&1; then
		tail -n 20 "$work/kbuild.log"
		fail_setup "surand.ko does not build against $KDIR (log: $work/kbuild.log)"
	fi
	if grep -E 'warning:' "$work/kbuild.log" >/dev/null; then
		grep -E 'warning:' "$work/kbuild.log" | head -n 5
		fail_setup "surand.ko builds with warnings"
	fi
fi
root=$work/initramfs
rm -rf "$root" && mkdir -p "$root"/{bin,dev,proc,sys,tmp} || exit 2
# ktest links the library's own SHA-1 and ChaCha20 (the seeding test's references).
if ! gcc -static -O2 -Wall -Wextra -Werror -pthread -Isrc/crypto -o "$root/bin/ktest" \
	kmod/tests/ktest.c src/crypto/sha1.c src/crypto/chacha20_portable.c -lm \
	>"$work/ktest-build.log" 2>&1; then
	cat "$work/ktest-build.log"
	fail_setup "kmod/tests/ktest.c does not build static"
fi
cp "$busybox" "$root/bin/busybox" && cp kmod/tests/init "$root/init" &&
	cp "$module" "$root/surand.ko" && chmod 0755 "$root/init" || exit 2
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz" ||
	fail_setup "cpio"
say "setup took $((SECONDS - t_start)) s"

# ---- boot -----------------------------------------------------------------------
log=$work/serial.log
args="ktest.args=$thread_reads${only:+,$only}"
say "booting $abi under qemu (TCG, 4 vCPUs, 2 nodes), timeout ${timeout_s} s"
t_boot=$SECONDS
timeout -k 5 "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp 4,sockets=2,cores=2,threads=1 -m 1024 \
	-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M \
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
	-kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 preempt=full panic=-1 quiet loglevel=3 rdinit=/init $args" \
	-nographic -no-reboot -nic none </dev/null >"$log" 2>&1
qrc=$?
say "guest ran $((SECONDS - t_boot)) s (qemu status $qrc)"

# ---- results ---------------------------------------------------------------------
tr -d '\r' <"$log" >"$log.txt"
grep -E '^(PASS|FAIL) ' "$log.txt"
grep -E '^# ' "$log.txt"
passed=$(grep -c '^PASS ' "$log.txt")
failed=$(grep -c '^FAIL ' "$log.txt")
# A complete run: ktest announced its plan, printed that many results, said
# so itself, and exited 0.  Anything less (a killed ktest, a panic, a guest
# stopped early) is a failure, whatever PASS lines came before.
plan=$(sed -n 's/^KTEST-PLAN \([0-9]*\)$/\1/p' "$log.txt" | head -n1)
done_n=$(sed -n 's/^KTEST-DONE \([0-9]*\)$/\1/p' "$log.txt" | head -n1)
end_rc=$(sed -n 's/^KTEST-END rc=\([0-9]*\)$/\1/p' "$log.txt" | head -n1)
why=
if [ -z "$end_rc" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		why="the guest did not finish within $timeout_s s"
	else
		why="the guest stopped before the end (qemu status $qrc)"
	fi
elif [ "$end_rc" != 0 ]; then
	why="ktest exited with status $end_rc"
elif [ -z "$plan" ] || [ -z "$done_n" ]; then
	why="ktest printed no KTEST-PLAN or KTEST-DONE line"
elif [ "$done_n" != "$plan" ] || [ $((passed + failed)) != "$plan" ]; then
	why="ktest planned $plan results, reported $done_n, and the log holds $((passed + failed))"
fi
if [ -n "$why" ]; then
	echo "FAIL kernel/guest: $why; last lines of the serial log:"
	tail -n 15 "$log.txt" | sed 's/^/    /'
	failed=$((failed + 1))
fi
if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
	echo "FAIL kernel/guest: no test result in the serial log"
	tail -n 15 "$log.txt" | sed 's/^/    /'
	failed=1
fi
# The benchmark table (emulated: only the ratios and the scaling shape mean anything).
if grep -q '^BENCH ' "$log.txt"; then
	grep '^BENCH ' "$log.txt" >"$work/bench.txt"
	{
	echo "# guest benchmark (qemu TCG, emulated: ratios only), 64-byte reads, MB/s"
	printf "# %-10s %7s %10s %10s %10s %9s %9s\n" design threads surandom urandom getrandom /urandom /getrandom
	awk '
	/^BENCH/ {
		split($4, t, "="); split($6, m, "="); n = t[2]
		if ($2 == "surandom") { s[$3, n] = m[2]; d[$3] = 1 }
		else sys[$2, n] = m[2]
	}
	END {
		for (dn in d) for (n = 1; n <= 4; n *= 2) if ((dn, n) in s)
			printf "# %-10s %7d %10.3f %10.3f %10.3f %9.2f %9.2f\n", dn, n, s[dn, n], sys["urandom", n], sys["getrandom", n], sys["urandom", n] ? s[dn, n] / sys["urandom", n] : 0, sys["getrandom", n] ? s[dn, n] / sys["getrandom", n] : 0
	}' "$work/bench.txt" | sort -s -k2,2
	grep '^BENCHLOCK ' "$log.txt" | sed 's/^BENCHLOCK /# /'
	if grep -q '^MIXED ' "$log.txt"; then
		echo "# mixed workload (processes): a careful reader's 16 B read every 10 ms, latency in us,"
		echo "# beside N abusers reading 4 KiB in a loop (100 samples: p99 is the 2nd largest)"
		printf "# %-10s %7s %9s %9s %9s\n" design abusers p50_us p99_us max_us
		awk '/^MIXED/ {
			split($3, a, "="); split($5, p, "="); split($6, q, "="); split($7, x, "=")
			printf "# %-10s %7d %9d %9d %9d\n", $2, a[2], p[2], q[2], x[2]
		}' "$log.txt" | sort -s -k2,2
	fi
	} | tee "$work/bench-table.txt"
fi
echo "$passed passed, $failed failed"
say "total $((SECONDS - t_start)) s"
[ "$failed" = 0 ]
