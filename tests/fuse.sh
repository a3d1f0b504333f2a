#!/usr/bin/env bash
# tests/fuse.sh - surandfs: the read path without FUSE (always), then a real
# mount in a temporary directory: 64 MiB read, concurrent readers get
# different bytes, writes, truncates and metadata changes fail with the exact
# errno, unmount by fusermount3 -u, SIGTERM, SIGINT (also inherited ignored)
# and SIGHUP, each ending the daemon with status 0; SIGHUP inherited ignored
# (nohup) is kept.
# Needs fuse3 (build) and a usable /dev/fuse; otherwise SKIP (FAIL under
# SURAND_REQUIRE_ALL=1).  Every mount is undone in the EXIT trap, with timeouts.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
SFS=$top/$BUILD/surandfs
RP=$top/$BUILD/surandfs-readpath-test
tmp=$(mktemp -d)
mounts=() pids=()

cleanup() {
	local m p
	for m in "${mounts[@]}"; do
		grep -q " $m fuse" /proc/mounts 2>/dev/null && timeout 10 fusermount3 -u -z "$m" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	for m in "${mounts[@]}"; do
		grep -q " $m fuse" /proc/mounts 2>/dev/null && timeout 10 umount -l "$m" 2>/dev/null
	done
	rm -rf "$tmp" 2>/dev/null
}
trap cleanup EXIT

pass() { echo "PASS fuse/$1"; }
fail() { echo "FAIL fuse/$1: $2"; }
skip() { # name, why, package
	if [ "${SURAND_REQUIRE_ALL:-0}" = 1 ]; then
		echo "FAIL fuse/$1: skipped under SURAND_REQUIRE_ALL=1: $2 (apt-get install $3)"
	else
		echo "SKIP fuse/$1: $2 (apt-get install $3)"
	fi
}

# ---- the read path, without FUSE ---------------------------------------------
if [ -x "$RP" ]; then
	timeout 60 "$RP" || fail readpath "exited with status $?"
else
	fail readpath "$RP missing (make $BUILD/surandfs-readpath-test)"
fi

# ---- can this machine mount? -----------------------------------------------------
if [ ! -x "$SFS" ]; then
	if pkg-config --exists fuse3 2>/dev/null; then
		fail build "fuse3 is installed but $SFS was not built (make $SFS)"
	else
		skip mount "libfuse3 not found, surandfs not built" "fuse3 libfuse3-dev"
	fi
	exit 0
fi
if ! command -v fusermount3 >/dev/null 2>&1; then
	skip mount "fusermount3 not found" fuse3
	exit 0
fi
if [ ! -c /dev/fuse ] || ! { : <>/dev/fuse; } 2>/dev/null; then
	skip mount "/dev/fuse missing or not usable here (modprobe fuse; a container needs --device /dev/fuse)" fuse3
	exit 0
fi
if [ "$(id -u)" != 0 ] && [ ! -u "$(command -v fusermount3)" ]; then
	skip mount "not root and fusermount3 is not setuid" fuse3
	exit 0
fi

mounted() { grep -q " $1 fuse.surandfs " /proc/mounts; }

# Mounts a new directory in the foreground daemon, started with the signals
# named (if any) ignored, as nohup or a shell's background job leaves them;
# sets $mnt and $pid.
start() {
	mnt=$(mktemp -d "$tmp/mnt.XXXXXX")
	mounts+=("$mnt")
	if [ $# -gt 0 ]; then
		(trap '' "$@"; exec "$SFS" "$mnt" -f) >"$mnt.log" 2>&1 &
	else
		# SIGHUP at its default whatever this shell inherited (nohup ignores it)
		env --default-signal=HUP "$SFS" "$mnt" -f >"$mnt.log" 2>&1 &
	fi
	pid=$!
	pids+=("$pid")
	local i
	for i in $(seq 100); do
		mounted "$mnt" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# Waits (10 s at most) for daemon $1 to exit; sets $st to its status, 124 if it did not.
wait_exit() {
	local i
	for i in $(seq 100); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			st=$?
			return
		fi
		sleep 0.1
	done
	st=124
}

if ! start; then
	# /dev/fuse opened fine, so a failed mount here is a failure, not an absence
	fail mount "surandfs did not mount: $(head -c 300 "$mnt.log" | tr '\n' ' ')"
	exit 0
fi
pass mount

# ---- the files ----------------------------------------------------------------------
names=$(ls "$mnt" | sort | tr '\n' ' ')
attrs=$(stat -c '%a %s %F' "$mnt/urandom" "$mnt/random" | sort -u)
if [ "$names" = "random urandom " ] && [ "$attrs" = "444 0 regular empty file" ]; then
	pass files
else
	fail files "names '$names', attributes '$attrs'"
fi

# ---- 64 MiB -------------------------------------------------------------------------------
if timeout 60 dd if="$mnt/urandom" of="$tmp/big" bs=1M count=64 iflag=fullblock status=none; then
	size=$(stat -c %s "$tmp/big")
	# every byte value appears in 64 KiB of random bytes (a miss has probability ~2^-360)
	vals=$(head -c 65536 "$tmp/big" | od -An -v -tu1 | tr -s ' ' '\n' | grep -v '^$' | sort -u | wc -l)
	if [ "$size" -eq 67108864 ] && [ "$vals" -eq 256 ] &&
		! cmp -s <(head -c 1048576 "$tmp/big") <(tail -c 1048576 "$tmp/big"); then
		pass read-64MiB
	else
		fail read-64MiB "size $size, $vals byte values in the first 64 KiB"
	fi
else
	fail read-64MiB "dd failed"
fi
rm -f "$tmp/big"
if [ "$(timeout 20 head -c 100000 "$mnt/random" | wc -c)" -eq 100000 ]; then
	pass read-random
else
	fail read-random "short read of $mnt/random"
fi

# ---- two concurrent readers: different bytes, no 64-byte block in common --------------------
timeout 60 head -c 4194304 "$mnt/urandom" >"$tmp/a" &
ra=$!
timeout 60 head -c 4194304 "$mnt/urandom" >"$tmp/b" &
rb=$!
tasks=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
wait "$ra"
sa=$?
wait "$rb"
sb=$?
common=$(cat "$tmp/a" "$tmp/b" | od -An -v -tx1 -w64 | sort | uniq -d | wc -l)
if [ "$sa" -eq 0 ] && [ "$sb" -eq 0 ] && [ "$(stat -c %s "$tmp/a")" -eq 4194304 ] &&
	[ "$(stat -c %s "$tmp/b")" -eq 4194304 ] && ! cmp -s "$tmp/a" "$tmp/b" && [ "$common" -eq 0 ]; then
	pass concurrent-readers
else
	fail concurrent-readers "status $sa/$sb, $common 64-byte blocks in common"
fi
rm -f "$tmp/a" "$tmp/b"
if [ "$tasks" -ge 2 ]; then
	pass multithreaded
else
	fail multithreaded "the daemon runs $tasks thread(s)"
fi

# ---- writes, truncates, namespace changes: exact errno ---------------------------------------
if command -v python3 >/dev/null 2>&1; then
	timeout 60 python3 - "$mnt" <<'EOF'
import errno, os, sys
m = sys.argv[1]
def expect(name, fn, want):
    try:
        fd = fn()
        if isinstance(fd, int):
            os.close(fd)
        got = "ok"
    except OSError as e:
        got = errno.errorcode.get(e.errno, str(e.errno))
    if got == want:
        print("PASS fuse/" + name)
    else:
        print("FAIL fuse/%s: got %s, want %s" % (name, got, want))
u = m + "/urandom"
expect("open-wronly", lambda: os.open(u, os.O_WRONLY), "EACCES")
expect("open-rdwr", lambda: os.open(m + "/random", os.O_RDWR), "EACCES")
expect("open-append", lambda: os.open(u, os.O_WRONLY | os.O_APPEND), "EACCES")
expect("open-trunc", lambda: os.open(u, os.O_RDONLY | os.O_TRUNC), "EACCES")
expect("truncate", lambda: os.truncate(u, 0), "EACCES")
if os.access(u, os.R_OK) and not os.access(u, os.W_OK):
    print("PASS fuse/access")
else:
    print("FAIL fuse/access: access(2) says R_OK %s, W_OK %s" % (os.access(u, os.R_OK), os.access(u, os.W_OK)))
expect("create", lambda: os.open(m + "/new", os.O_WRONLY | os.O_CREAT, 0o644), "EROFS")
expect("mkdir", lambda: os.mkdir(m + "/d"), "EROFS")
expect("unlink", lambda: os.unlink(u), "EROFS")
expect("rename", lambda: os.rename(u, m + "/x"), "EROFS")
expect("chmod", lambda: os.chmod(u, 0o666), "EROFS")
expect("symlink", lambda: os.symlink("/etc/passwd", m + "/l"), "EROFS")
expect("link", lambda: os.link(u, m + "/h"), "EROFS")
expect("chown", lambda: os.chown(u, os.getuid(), os.getgid()), "EROFS")
expect("utime", lambda: os.utime(u, (1, 1)), "EROFS")
expect("setxattr", lambda: os.setxattr(u, "user.surandfs", b"1"), "EROFS")
expect("removexattr", lambda: os.removexattr(u, "user.surandfs"), "EROFS")
expect("open-rdonly", lambda: os.open(u, os.O_RDONLY), "ok")
EOF
else
	skip errno "python3 not found" python3
fi
if (echo x >"$mnt/urandom") 2>/dev/null; then
	fail shell-write "echo x > urandom succeeded"
else
	pass shell-write
fi

# ---- unmount: fusermount3 -u, SIGTERM, SIGINT, SIGHUP ----------------------------------------------
timeout 20 fusermount3 -u "$mnt"
wait_exit "$pid"
if [ "$st" = 0 ] && ! mounted "$mnt"; then
	pass unmount-fusermount
else
	fail unmount-fusermount "daemon status $st, still mounted: $(mounted "$mnt" && echo yes || echo no)"
fi
# SIGINT and SIGTERM unmount also when the daemon inherited them ignored
for case in TERM INT HUP TERM:ignored INT:ignored; do
	sig=${case%%:*} name=unmount-sig${case/:/-}
	if [ "$case" = "$sig" ]; then start; else start "$sig"; fi || {
		fail "$name" "remount failed: $(head -c 300 "$mnt.log" | tr '\n' ' ')"
		continue
	}
	head -c 1000 "$mnt/urandom" >/dev/null
	kill -s "$sig" "$pid"
	wait_exit "$pid"
	if [ "$st" = 0 ] && ! mounted "$mnt"; then
		pass "$name"
	else
		fail "$name" "daemon status $st, still mounted: $(mounted "$mnt" && echo yes || echo no)"
	fi
done
# SIGHUP inherited ignored (nohup) stays ignored: the daemon goes on serving
if start HUP; then
	kill -s HUP "$pid"
	sleep 0.5
	got=$(timeout 20 head -c 4096 "$mnt/urandom" 2>/dev/null | wc -c)
	alive=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)
	kill -s TERM "$pid" 2>/dev/null
	wait_exit "$pid"
	if [ "$alive" = yes ] && [ "$got" = 4096 ] && [ "$st" = 0 ] && ! mounted "$mnt"; then
		pass sigHUP-ignored-kept
	else
		fail sigHUP-ignored-kept "after SIGHUP: alive $alive, read $got of 4096 bytes; after SIGTERM: status $st"
	fi
else
	fail sigHUP-ignored-kept "remount failed: $(head -c 300 "$mnt.log" | tr '\n' ' ')"
fi

# ---- started with fds 0-2 closed: /dev/fuse and the files it opens stay above 2 ------------------
mnt=$(mktemp -d "$tmp/mnt.XXXXXX")
mounts+=("$mnt")
sh -c 'exec "$1" "$2" -f <&- >&- 2>&-' sh "$SFS" "$mnt" &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do mounted "$mnt" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
std=$(for fd in 0 1 2; do readlink "/proc/$pid/fd/$fd"; done | sort -u | tr '\n' ' ')
got=$(timeout 20 head -c 4096 "$mnt/urandom" 2>/dev/null | wc -c)
kill -s TERM "$pid"
wait_exit "$pid"
if [ "$std" = "/dev/null " ] && [ "$got" = 4096 ] && [ "$st" = 0 ]; then
	pass closed-std-fds
else
	fail closed-std-fds "fds 0-2 are '$std' (want /dev/null), read $got of 4096 bytes, status $st"
fi

# ---- usage errors -------------------------------------------------------------------------------------
"$SFS" >/dev/null 2>&1
st=$?
mkdir -p "$tmp/empty"
"$SFS" "$tmp/empty" -f -o no_such_option >/dev/null 2>&1
st2=$?
if [ "$st" = 64 ] && [ "$st2" = 64 ] && ! mounted "$tmp/empty"; then
	pass usage
else
	fail usage "no mount point: status $st, unknown option: status $st2 (want 64)"
fi
# a regular file as mount point: refused with one line and 64, nothing mounted
echo keep >"$tmp/plain"
timeout 20 "$SFS" "$tmp/plain" -f >"$tmp/plain.out" 2>"$tmp/plain.err" &
ppid=$!
pids+=("$ppid")
mounts+=("$tmp/plain")
wait_exit "$ppid"
if [ "$st" = 64 ] && ! mounted "$tmp/plain" && [ "$(wc -l <"$tmp/plain.err")" = 1 ] &&
	grep -q "^surandfs: .*not a directory" "$tmp/plain.err" && [ "$(cat "$tmp/plain")" = keep ]; then
	pass usage-not-a-directory
else
	fail usage-not-a-directory "status $st (want 64), mounted: $(mounted "$tmp/plain" && echo yes || echo no), stderr: $(head -c 200 "$tmp/plain.err")"
fi
exit 0
