#!/bin/sh
# Unpacks Debian's cloud kernel for the QEMU agreement tests without
# installing it (no initramfs generation, no bootloader hooks): only the
# vmlinuz and the qemu_fw_cfg module are taken from the .deb.  For another
# architecture (arm64) it also takes that architecture's busybox-static,
# and reads apt's package lists for it into DIR/apt/ (a private apt state:
# no `dpkg --add-architecture`, nothing installed, the host's apt untouched).
#
# usage: fetch_kernel.sh [ARCH [DIR]]   ARCH: amd64 (default) or arm64;
#   DIR: default ~/.cache/ptfs-qemu for amd64, ~/.cache/ptfs-qemu-ARCH else
#   (where test_qemu.sh looks).  Needs the Debian mirror; not root (except
#   for refreshing the host's own lists when they are missing).
set -eu
arch=${1:-amd64}
cache=${XDG_CACHE_HOME:-$HOME/.cache}
if [ "$arch" = amd64 ]; then dir=${2:-$cache/ptfs-qemu}; else dir=${2:-$cache/ptfs-qemu-$arch}; fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

apt_opts=
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	st=$dir/apt
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial"
	apt_opts="-o Dir::State::Lists=$st/lists -o Dir::Cache=$st/cache -o Dir::State::status=/dev/null
		-o APT::Architecture=$arch -o APT::Architectures::=$arch"
fi
# The metapackage names the current ABI's image (linux-image-6.1.0-N-cloud-ARCH).
image() {
	# shellcheck disable=SC2086
	apt-cache $apt_opts depends "linux-image-cloud-$arch" 2>/dev/null |
		sed -n "s/^ *Depends: \\(linux-image-[0-9][^ ]*-cloud-$arch\\)\$/\\1/p" | head -n 1
}
pkg=$(image)
# A private state starts empty, and a container image often ships without
# apt's lists.
if [ -z "$pkg" ] && { [ -n "$apt_opts" ] || [ "$(id -u)" = 0 ]; }; then
	# shellcheck disable=SC2086
	apt-get $apt_opts update -q >/dev/null && pkg=$(image)
fi
[ -n "$pkg" ] || { echo "fetch_kernel.sh: apt knows no linux-image-cloud-$arch" >&2; exit 1; }
kver=${pkg#linux-image-}
if [ -f "$dir/boot/vmlinuz-$kver" ] &&
	[ -n "$(find "$dir" -path "*/modules/$kver/*" -name 'qemu_fw_cfg.ko*' 2>/dev/null)" ] &&
	{ [ -z "$apt_opts" ] || [ -x "$dir/bin/busybox" ]; }; then
	echo "fetch_kernel.sh: $dir has $kver"
	exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-kernel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
pkgs=$pkg
[ -z "$apt_opts" ] || pkgs="$pkg busybox-static"
# shellcheck disable=SC2086
(cd "$scratch" && apt-get $apt_opts download -q $pkgs 2>&1 | grep -v unsandboxed >&2 || true)
ls "$scratch"/"$pkg"_*.deb >/dev/null
# lib/modules or usr/lib/modules, whichever the package uses
dpkg-deb --fsys-tarfile "$scratch"/"$pkg"_*.deb |
	tar -x -C "$dir" --wildcards "./boot/vmlinuz-$kver" "*/modules/$kver/kernel/drivers/firmware/qemu_fw_cfg.ko*"
if [ -n "$apt_opts" ]; then
	dpkg-deb --fsys-tarfile "$scratch"/busybox-static_*.deb | tar -x -C "$dir" ./bin/busybox
fi
echo "fetch_kernel.sh: $kver unpacked in $dir"
