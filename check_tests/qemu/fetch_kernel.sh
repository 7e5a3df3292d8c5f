#!/bin/sh
# Unpacks Debian's cloud kernel for the QEMU agreement tests without
# installing it (no initramfs generation, no bootloader hooks): only the
# vmlinuz and the qemu_fw_cfg module are taken from the .deb.  For another
# architecture (arm64) it also takes that architecture's busybox-static,
# and reads apt's package lists for it into DIR/apt/ (a private apt state:
# no `dpkg --add-architecture`, nothing installed, the host's apt untouched).
#
#
# With --iommu, the kernel of the IOMMU test (README.md here, "IOMMUs"):
# for amd64 Debian's generic `amd64` flavour (the cloud flavour has no
# CONFIG_AMD_IOMMU; qemu-x86-64-5level boots it too, with pti=on: README.md
# here, "PTI"), for arm64 the cloud flavour (CONFIG_ARM_SMMU_V3=y);
# its virtio modules, and the headers an out-of-tree module is built with:
# linux-headers-KVER, its -common package and linux-kbuild (of the host's
# architecture: its programs run at build time), unpacked side by side in
# DIR/usr/src and DIR/usr/lib, whose relative symbolic links then hold; the
# flavour's Makefile, which includes the -common one by its absolute
# /usr/src path, is pointed at DIR's.
#
# usage: fetch_kernel.sh [--iommu] [ARCH [DIR]]   ARCH: amd64 (default) or
#   arm64; DIR: default ~/.cache/ptfs-qemu for amd64, ~/.cache/ptfs-qemu-ARCH
#   else, ~/.cache/ptfs-qemu-iommu[-arm64] with --iommu (where test_qemu.sh
#   and test_qemu_iommu.sh look).  Needs the Debian mirror; not root (except
#   for refreshing the host's own lists when they are missing).
set -eu
iommu=0
[ "${1:-}" != --iommu ] || { iommu=1; shift; }
arch=${1:-amd64}
cache=${XDG_CACHE_HOME:-$HOME/.cache}
sfx=; [ "$arch" = amd64 ] || sfx=-$arch
if [ $iommu = 1 ]; then dir=${2:-$cache/ptfs-qemu-iommu$sfx}; else dir=${2:-$cache/ptfs-qemu$sfx}; fi
flavour=cloud-$arch
[ $iommu = 0 ] || [ "$arch" != amd64 ] || flavour=amd64
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

apt_opts=
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	st=$dir/apt
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial"
	apt_opts="-o Dir::State::Lists=$st/lists -o Dir::Cache=$st/cache -o Dir::State::status=/dev/null
		-o APT::Architecture=$arch -o APT::Architectures::=$arch"
fi
# The metapackage names the current ABI's image (linux-image-6.1.0-N-FLAVOUR).
image() {
	# shellcheck disable=SC2086
	apt-cache $apt_opts depends "linux-image-$flavour" 2>/dev/null |
		sed -n "s/^ *Depends: \\(linux-image-[0-9][^ ]*-$flavour\\)\$/\\1/p" | head -n 1
}
pkg=$(image)
# A private state starts empty, and a container image often ships without
# apt's lists.
if [ -z "$pkg" ] && { [ -n "$apt_opts" ] || [ "$(id -u)" = 0 ]; }; then
	# shellcheck disable=SC2086
	apt-get $apt_opts update -q >/dev/null && pkg=$(image)
fi
[ -n "$pkg" ] || { echo "fetch_kernel.sh: apt knows no linux-image-$flavour" >&2; exit 1; }
kver=${pkg#linux-image-}
abi=${kver%-"$flavour"}
if [ -f "$dir/boot/vmlinuz-$kver" ] &&
	[ -n "$(find "$dir" -path "*/modules/$kver/*" -name 'qemu_fw_cfg.ko*' 2>/dev/null)" ] &&
	{ [ $iommu = 0 ] || [ -f "$dir/usr/src/linux-headers-$kver/.config" ]; } &&
	{ [ -z "$apt_opts" ] || [ -x "$dir/bin/busybox" ]; }; then
	echo "fetch_kernel.sh: $dir has $kver"
	exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-kernel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
pkgs=$pkg
[ -z "$apt_opts" ] || pkgs="$pkg busybox-static"
[ $iommu = 0 ] || pkgs="$pkgs linux-headers-$kver linux-headers-$abi-common"
# shellcheck disable=SC2086
(cd "$scratch" && apt-get $apt_opts download -q $pkgs 2>&1 | grep -v unsandboxed >&2 || true)
ls "$scratch"/"$pkg"_*.deb >/dev/null
# lib/modules or usr/lib/modules, whichever the package uses
mods="*/modules/$kver/kernel/drivers/firmware/qemu_fw_cfg.ko*"
[ $iommu = 0 ] || mods="$mods */modules/$kver/kernel/drivers/virtio/* */modules/$kver/kernel/drivers/block/virtio_blk.ko*
	*/modules/$kver/kernel/drivers/net/virtio_net.ko* */modules/$kver/kernel/drivers/net/net_failover.ko*
	*/modules/$kver/kernel/net/core/failover.ko* ./boot/config-$kver"
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile "$scratch"/"$pkg"_*.deb |
	tar -x -C "$dir" --wildcards "./boot/vmlinuz-$kver" $mods
if [ $iommu = 1 ]; then
	# The host's linux-kbuild (host programs), named by the headers' Depends.
	kbuild=$(dpkg-deb -f "$scratch"/linux-headers-"$kver"_*.deb Depends | tr ',' '\n' |
		sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -n 1)
	(cd "$scratch" && apt-get download -q "$kbuild" 2>&1 | grep -v unsandboxed >&2 || true)
	for d in "$scratch"/linux-headers-"$kver"_*.deb "$scratch"/linux-headers-"$abi"-common_*.deb \
		"$scratch"/"$kbuild"_*.deb; do
		dpkg-deb --fsys-tarfile "$d" | tar -x -C "$dir" ./usr
	done
	sed -i "s#^include /usr/src/#include $dir/usr/src/#" "$dir/usr/src/linux-headers-$kver/Makefile"
fi
if [ -n "$apt_opts" ]; then
	dpkg-deb --fsys-tarfile "$scratch"/busybox-static_*.deb | tar -x -C "$dir" ./bin/busybox
fi
echo "fetch_kernel.sh: $kver unpacked in $dir"
