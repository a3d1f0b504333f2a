#!/usr/bin/env bash
# scripts/deb.sh - the Debian packages (debian/):
#   deb.sh build   `make deb`: dpkg-buildpackage -us -uc -b in a copy of the
#                  tree (build/deb/src: the files git knows), the .debs in
#                  build/deb/, then lintian: any error or warning fails.
#   deb.sh check   `make check-deb` (root): installs build/deb/*.deb with apt,
#                  runs the autopkgtest (debian/tests) against them, builds
#                  surand.ko with DKMS for Debian's kernel ABI and boots it under
#                  qemu (scripts/kernel-test.sh, KTEST_MODULE), then purges the
#                  packages and checks that no file they installed is left
#                  (dpkg -L while installed; dpkg -l and the files after).
# Prints PASS/FAIL lines and a last line "N passed, N failed".  Exit 0 all
# passed, 1 a failure, 2 usage or a missing build, 77 a missing tool (one
# line "MISSING: tool (apt-get install pkg)").
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
out=build/deb
version=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
pkgs="libsurand1 libsurand-dev surand surand-dkms"
passed=0 failed=0
pass() { echo "PASS deb/$1"; passed=$((passed + 1)); }
fail() { echo "FAIL deb/$1"; failed=$((failed + 1)); }
check() { # name status message
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1: $3"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }
need() { # command package
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "MISSING: $1 (apt-get install $2)"
	missing=1
}

build() {
	missing=0
	need dpkg-buildpackage dpkg-dev
	need dh debhelper
	need dh_dkms dh-dkms
	need lintian lintian
	need fakeroot fakeroot
	[ "$missing" = 0 ] || exit 77
	local src=$out/src/surand-$version t0=$SECONDS
	rm -rf "$out" && mkdir -p "$src" || exit 2
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src"
	# No network, no root: Rules-Requires-Root: no (fakeroot is not used).
	if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
		pass "dpkg-buildpackage ($((SECONDS - t0)) s)"
	else
		tail -n 30 "$out/build.log"
		fail "dpkg-buildpackage: see $out/build.log"; finish
	fi
	mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/ || exit 2
	local p n
	for p in $pkgs; do
		n=$(ls "$out"/"${p}"_*.deb 2>/dev/null | wc -l)
		check "package-$p" "$([ "$n" = 1 ]; echo $?)" "no ${p}_*.deb in $out"
	done
	# The benchmark's OpenSSL and libsodium peers are opened at run time: the
	# command package suggests those libraries and does not depend on them.
	local deps sugg
	deps=$(dpkg-deb -f "$out"/surand_*.deb Depends 2>/dev/null)
	sugg=$(dpkg-deb -f "$out"/surand_*.deb Suggests 2>/dev/null)
	check surand-peers-suggested "$(! printf '%s\n' "$deps" | grep -Eq 'libssl|libsodium' &&
		printf '%s\n' "$sugg" | grep -q libssl3 && printf '%s\n' "$sugg" | grep -q libsodium23; echo $?)" \
		"surand: Depends '$deps', Suggests '$sugg' (want libssl3 and libsodium23 suggested, not depended on)"
	# Lintian: no error and no warning (overrides carry their reason in the file).
	lintian --fail-on error,warning --no-tag-display-limit "$out"/*.changes >"$out/lintian.log" 2>&1
	local rc=$?
	grep -E '^[EW]: ' "$out/lintian.log"
	check lintian "$rc" "lintian reports errors or warnings ($out/lintian.log)"
	finish
}

# Every path dpkg says the packages own, kept while they are installed.
owned() { dpkg -L $pkgs 2>/dev/null | sort -u; }

check_installed() {
	[ "$(id -u)" = 0 ] || { echo "check-deb: run as root (dpkg -i)"; exit 2; }
	missing=0
	need autopkgtest autopkgtest
	need dkms dkms
	[ "$missing" = 0 ] || exit 77
	local debs
	debs=$(ls "$out"/*.deb 2>/dev/null)
	[ -n "$debs" ] || { echo "check-deb: no packages in $out (make deb first)"; exit 2; }
	local p st before
	for p in $pkgs; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		if [ -n "$st" ] && [ "$st" != not-installed ] && [ "$st" != config-files ]; then
			echo "check-deb: $p is already installed ($st): purge it first"; exit 2
		fi
	done
	before=$(mktemp) && owned_list=$(mktemp)
	trap 'rm -f "$before" "$owned_list"' EXIT
	dpkg -l | awk '/^ii/ {print $2}' | sort >"$before"

	# 1. install (apt resolves the dependencies: libfuse3, dkms)
	# shellcheck disable=SC2086 # the package files, one word each
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(printf './%s ' $debs) \
		>"$out/install.log" 2>&1
	check install $? "apt-get install of $out/*.deb failed ($out/install.log)"
	owned >"$owned_list"
	check dpkg-L-lists-files "$([ -s "$owned_list" ] && grep -qx /usr/bin/surand "$owned_list"; echo $?)" \
		"dpkg -L lists no files for the installed packages"
	local triplet so
	triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	so=/usr/lib/$triplet/libsurand.so.1
	# (merged /usr: the cache may name it /lib/<triplet>/)
	check shared-library "$([ -e "$so" ] && ldconfig -p | grep -Eq "=> (/usr)?/lib/$triplet/libsurand\.so\.1\$"; echo $?)" \
		"$so not in the loader's cache"
	check surandfs-installed "$([ -x /usr/sbin/surandfs ]; echo $?)" "/usr/sbin/surandfs missing"
	check preload-private "$([ -f "/usr/lib/$triplet/surand/libsurand-preload.so" ]; echo $?)" \
		"the preload is not in /usr/lib/$triplet/surand"

	# 2. autopkgtest, against the installed packages (debian/tests/control)
	rm -rf "$out/autopkgtest"
	autopkgtest --no-built-binaries --output-dir "$out/autopkgtest" "$out/src/surand-$version" -- null \
		>"$out/autopkgtest.log" 2>&1
	local rc=$?
	sed -n '/@@@ summary/,$p' "$out/autopkgtest.log" | grep -E '^(pkg-config-build|selftest|run-preload) '
	check autopkgtest "$rc" "autopkgtest exit $rc ($out/autopkgtest.log)"

	# 3. DKMS: the module for Debian's kernel (the ABI of linux-headers-amd64,
	# the kernel scripts/kernel-test.sh boots), then that module under qemu.
	local abi ko
	abi=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -n1 | sed 's/^linux-headers-//')
	if [ -z "$abi" ] || [ ! -d "/usr/src/linux-headers-$abi" ]; then
		fail "dkms: no Debian kernel headers (apt-get install linux-headers-amd64)"
	else
		dkms install -m surand -v "${version%%-*}" -k "$abi" >"$out/dkms.log" 2>&1
		check dkms-install $? "dkms install for $abi failed ($out/dkms.log)"
		ko=$(ls /lib/modules/"$abi"/updates/dkms/surand.ko* 2>/dev/null | head -n1)
		check dkms-module "$([ -n "$ko" ]; echo $?)" "no surand.ko under /lib/modules/$abi/updates/dkms"
		if [ -n "$ko" ]; then
			case $ko in
			*.xz) xz -dc "$ko" >"$out/surand.ko" ;;
			*.zst) zstd -qdc "$ko" >"$out/surand.ko" ;;
			*) cp "$ko" "$out/surand.ko" ;;
			esac
			KTEST_MODULE=$top/$out/surand.ko KTEST_ONLY=tests KTEST_THREAD_READS=${KTEST_THREAD_READS:-2000} \
				BUILD=build bash scripts/kernel-test.sh >"$out/kernel.log" 2>&1
			rc=$?
			grep -E '^FAIL ' "$out/kernel.log"
			check "kernel-test-with-dkms-module ($(grep -E '^[0-9]+ passed' "$out/kernel.log" | tail -n1))" "$rc" \
				"the DKMS module fails under qemu ($out/kernel.log)"
		fi
	fi

	# 4. purge, and nothing left behind
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $pkgs >"$out/purge.log" 2>&1
	check purge $? "apt-get purge failed ($out/purge.log)"
	local left=0 f
	for p in $pkgs; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		if [ -n "$st" ] && [ "$st" != not-installed ]; then
			echo "# $p is still $st"; left=1
		fi
		if dpkg -L "$p" >/dev/null 2>&1; then echo "# dpkg -L $p still lists files"; left=1; fi
	done
	check packages-gone "$left" "a package is still known to dpkg"
	left=0
	while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] || continue # directories are shared (/usr/lib)
		echo "# left behind: $f"; left=1
	done <"$owned_list"
	for f in /usr/src/surand-* /var/lib/dkms/surand /lib/modules/*/updates/dkms/surand.ko*; do
		[ -e "$f" ] && { echo "# left behind: $f"; left=1; }
	done
	check no-files-left "$left" "files of the packages are left after purge"
	# The packages apt pulled in for them (dkms, libfuse3) are removed again.
	local extra
	extra=$(comm -13 "$before" <(dpkg -l | awk '/^ii/ {print $2}' | sort))
	if [ -n "$extra" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $extra >>"$out/purge.log" 2>&1
	fi
	check no-packages-added "$([ -z "$(comm -13 "$before" <(dpkg -l | awk '/^ii/ {print $2}' | sort))" ]; echo $?)" \
		"packages installed for the test are still installed"
	finish
}

case ${1:-} in
build) build ;;
check) check_installed ;;
*) echo "usage: scripts/deb.sh build|check"; exit 2 ;;
esac
