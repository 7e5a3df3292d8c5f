#!/bin/sh
# Unpacks Debian's cloud kernel for the QEMU agreement test without
# installing it (no initramfs generation, no bootloader hooks): only the
# vmlinuz and the qemu_fw_cfg module are taken from the .deb.
#
# usage: fetch_kernel.sh [DIR]   (default ~/.cache/ptfs-qemu, where
# test_qemu.sh looks).  Needs network access to the Debian mirror; not root.
set -eu
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/ptfs-qemu}
# The metapackage names the current ABI's image (linux-image-6.1.0-N-cloud-amd64).
image() {
	apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -n 1
}
pkg=$(image)
# A container image often ships without apt's lists.
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
	apt-get update -q >/dev/null && pkg=$(image)
fi
[ -n "$pkg" ] || { echo "fetch_kernel.sh: apt knows no linux-image-cloud-amd64 (apt-get update?)" >&2; exit 1; }
kver=${pkg#linux-image-}
if [ -f "$dir/boot/vmlinuz-$kver" ] &&
	[ -n "$(find "$dir" -path "*/modules/$kver/*" -name 'qemu_fw_cfg.ko*' 2>/dev/null)" ]; then
	echo "fetch_kernel.sh: $dir has $kver"
	exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-kernel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
	(cd "$scratch" && apt-get download "$pkg")
mkdir -p "$dir"
# lib/modules or usr/lib/modules, whichever the package uses
dpkg-deb --fsys-tarfile "$scratch"/"$pkg"_*.deb |
	tar -x -C "$dir" --wildcards "./boot/vmlinuz-$kver" "*/modules/$kver/kernel/drivers/firmware/qemu_fw_cfg.ko*"
echo "fetch_kernel.sh: $kver unpacked in $dir"
