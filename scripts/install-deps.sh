#!/usr/bin/env bash
# Installs every optional package surand's tests and benchmarks use (Debian 12, root).
# The library itself needs only a C compiler and make; `make check` skips (with the
# apt-get line) what is missing here, and CI (SURAND_REQUIRE_ALL=1) fails instead.
set -euo pipefail
PKGS=(
  build-essential pkg-config
  libssl-dev openssl           # differential tests, OpenSSL peers in the benchmark
  libsodium-dev                # differential tests, libsodium peer
  fuse3 libfuse3-dev           # surandfs
  dieharder rng-tools5         # statistical batteries (dieharder, rngtest)
  gnuplot-nox                  # surand bench --plot
  clang libclang-rt-14-dev llvm # libFuzzer, LeakSanitizer
  valgrind cppcheck clang-tidy
  python3
  groff-base mount bsdutils   # tests/cli.sh: man pages render (groff), loop devices (losetup), a pty (script)
  qemu-system-x86 busybox-static cpio kmod linux-headers-amd64  # kernel module under qemu
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static  # make check-arm64 (cross + user-mode emulator)
  libssl-dev:arm64 libsodium-dev:arm64 libbsd0:arm64  # the peers' arm64 builds (multiarch), for make check-arm64
)
# surand bench's small-draw peers: Rust's rand 0.8 thread_rng() (bench/rust-rand/,
# built offline from Debian's packaged crates) and libbsd's arc4random (dlopen)
PKGS+=(cargo librust-rand-dev libbsd0)
# make deb / make check-deb: the Debian packaging tools, DKMS and autopkgtest
PKGS+=(debhelper dpkg-dev fakeroot lintian dkms dh-dkms autopkgtest)
if [ "$(id -u)" != 0 ]; then echo "install-deps: run as root (apt-get)" >&2; exit 77; fi
export DEBIAN_FRONTEND=noninteractive
# The arm64 packages above come through Debian's multiarch (same mirror).
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
echo "install-deps: installed ${#PKGS[@]} packages"
