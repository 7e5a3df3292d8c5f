#!/bin/bash
# test_qemu_iommu.sh NAME IOMMU — a real guest's IOMMU tables against ptfs
# (issue #32 item 5; README.md here, "IOMMUs").  IOMMU: vtd (q35 +
# intel-iommu, legacy tables), vtd-sm (x-scalable-mode=on), amdvi (q35 +
# amd-iommu), smmuv3 (aarch64 virt,iommu=smmuv3).
#   1. builds the test module (iommu_probe/) against the guest kernel's
#      Debian headers (unpacked by fetch_kernel.sh --iommu, not installed;
#      arm64 with aarch64-linux-gnu-gcc);
#   2. boots the guest with a virtio-blk and a virtio-net device behind the
#      IOMMU, the devices do DMA, the module maps known buffers on every
#      device and prints them; QEMU traces the IOMMU's translations and
#      register writes, the registers are read with HMP xp, and the guest is
#      dumped as ELF (iommu_truth.py);
#   3. every page the module printed must walk in the dump to the printed
#      physical address through the device's context, and QEMU's traced
#      translations must agree or be unmapped since (iommu_agree.py): from
#      the device's entry (found here from the registers) and from the
#      registers alone ([iommu]), each in a capture.ini written beside the
#      dump that names it as its memory ([memory guest] dump = vmcore.elf,
#      ptfs-capture(5): the dump read in place, its cpu0 kept).
#
# Environment (meson.build here): PTFS_TOOL, PTFS_QEMU_WORK (a scratch
# directory: the build dir), optional PTFS_QEMU_KEEP=1 (keep the dump).
# Exit 0 pass, 1 fail, 77 skip (what is missing is printed) -- except under
# CI=true, where anything missing is a failure.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
usage="usage: test_qemu_iommu.sh NAME vtd|vtd-sm|amdvi|smmuv3"
name=${1:?$usage} iommu=${2:?$usage}
. "$HERE/../mount_lib.sh"
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")
WORK=${PTFS_QEMU_WORK:?PTFS_QEMU_WORK must name a scratch directory}/$name
cache=${XDG_CACHE_HOME:-$HOME/.cache}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "qemu-agreement: FAIL (CI=true, no skipping): $*"
		exit 1
	fi
	echo "qemu-agreement: skipped: $*"   # scripts/test repeats it
	exit 77
}

case $iommu in
vtd | vtd-sm | amdvi)
	arch=x86_64 deb=amd64 qpkg=qemu-system-x86 dir=$cache/ptfs-qemu-iommu flavour=amd64
	busybox=${BUSYBOX:-/bin/busybox} cross='' gcc=gcc-12 ;;
smmuv3)
	arch=aarch64 deb=arm64 qpkg=qemu-system-arm dir=$cache/ptfs-qemu-iommu-arm64 flavour=cloud-arm64
	busybox=${BUSYBOX:-$dir/bin/busybox} cross=aarch64-linux-gnu- gcc=aarch64-linux-gnu-gcc-12 ;;
*) echo "$usage"; exit 1 ;;
esac
command -v "qemu-system-$arch" >/dev/null || skip "qemu-system-$arch is not installed (Debian $qpkg)"
command -v cpio >/dev/null || skip "cpio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
command -v make >/dev/null || skip "make is not installed"
# The kernel's .kernelvariables name gcc-12 (Debian 12's kernel compiler).
command -v "$gcc" >/dev/null || skip "$gcc is not installed (Debian ${cross:+gcc-aarch64-linux-gnu, }gcc-12)"
[ -x "$busybox" ] || skip "$busybox is missing (Debian busybox-static:$deb; check_tests/qemu/fetch_kernel.sh --iommu $deb)"
kernel=
for k in "$dir"/boot/vmlinuz-*-"$flavour"; do
	[ -f "$k" ] && { kernel=$k; break; }
done
[ -n "$kernel" ] || skip "no Debian $flavour kernel in $dir (check_tests/qemu/fetch_kernel.sh --iommu $deb)"
kver=${kernel##*/vmlinuz-}
headers=$dir/usr/src/linux-headers-$kver
moddir=$dir/lib/modules/$kver
[ -d "$moddir" ] || moddir=$dir/usr/lib/modules/$kver
[ -f "$headers/.config" ] && [ -d "$moddir" ] ||
	skip "no headers or modules of $kver in $dir (check_tests/qemu/fetch_kernel.sh --iommu $deb)"
ml_tmpdir qemu-iommu
iommu_cleanup() {
	ml_cleanup
	if [ "$FAIL" = 0 ] && [ "${PTFS_QEMU_KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"/vmcore.elf "$WORK"/capture*.ini "$WORK"/disk.img
	else
		echo "the dump and QEMU's answers kept in $WORK"
	fi
}
trap iommu_cleanup EXIT
mkdir -p "$WORK"

# 1. the module, built once per kernel (the tests of one architecture share it)
probe=$PTFS_QEMU_WORK/iommu-probe-$kver
if [ ! -f "$probe/ptfs_iommu_probe.ko" ] || [ "$HERE/iommu_probe/ptfs_iommu_probe.c" -nt "$probe/ptfs_iommu_probe.ko" ]; then
	rm -rf "$probe" && mkdir -p "$probe" && cp "$HERE"/iommu_probe/* "$probe/"
	if make -C "$headers" M="$probe" ${cross:+ARCH=arm64 CROSS_COMPILE=$cross} modules >"$TMP/make.log" 2>&1; then
		ok "the test module builds against linux-headers-$kver"
	else
		bad "the test module builds against linux-headers-$kver"
		sed 's/^/    /' "$TMP/make.log"
		report
		exit 1
	fi
fi

# 2. QEMU's side
BUSYBOX=$busybox "$HERE/mkinitramfs_iommu.sh" "$WORK/initrd.cpio" "$moddir" "$probe/ptfs_iommu_probe.ko" ||
	{ bad "initramfs builds"; report; exit 1; }
# The guest's RAM is also a shared file and ptfs's live source reads the
# IOMMU's registers itself (issue #33 item 3; aarch64: with its gdbstub)
live=(--live-tool "$TOOL")
if ! python3 "$HERE/iommu_truth.py" --iommu "$iommu" --kernel "$kernel" --initrd "$WORK/initrd.cpio" \
	--out "$WORK" --timeout 240 "${live[@]}"; then
	bad "QEMU boots with $iommu, the module maps and QEMU dumps"
	report
	exit 1
fi
ok "QEMU boots with $iommu, the module maps and QEMU dumps ($kver)"
sed -n 's/^ptfs-init: /    guest: /p' "$WORK/serial.log"
# The devices did DMA through the IOMMU: the disk read gave block 7's bytes.
check "the guest read its disk through the IOMMU" grep -q '^ptfs-init: disk  *07 07 07 07' "$WORK/serial.log"
check "the guest module reports its mappings" grep -q 'ptfs-dma done [1-9]' "$WORK/serial.log"

check "a live mount of the running guest walks every page the module mapped, from the registers it reads" \
	grep -Eq '^live IOMMU: agree [1-9][0-9]*, disagree 0$' "$WORK/live.txt"
check "so does a ptfs-tool snapshot of it (the IOMMU's tables and its devices' only)" \
	grep -Eq '^snapshot: agree [1-9][0-9]*, disagree 0 ' "$WORK/live.txt"
sed 's/^/    /' "$WORK/live.txt" | head -5

# 3. ptfs against the guest and QEMU
check "ptfs walks every mapping of the guest module and QEMU's traces to the same addresses" \
	python3 "$HERE/iommu_agree.py" "$TOOL" "$iommu" "$WORK"
# ... and the comparison sees a wrong answer: with the first device's
# physical addresses moved by a page, its pages disagree.
python3 "$HERE/iommu_agree.py" --perturb "$TOOL" "$iommu" "$WORK" >"$TMP/perturb.txt" 2>&1
prc=$?
check "the comparison fails where the guest's addresses are moved by a page" \
	test $prc = 1 -a -n "$(grep -E 'device mode, guest module pages: .* disagree [1-9]' "$TMP/perturb.txt")"
# 4. the guest's PCI functions by name (issue #40 item 5): sysfs's list equals ptfs's from the
# dump's pci_root_buses, drivers included (x86: kallsyms has pci_root_buses; Debian arm64 has no
# KALLSYMS_ALL: its kallsyms has text symbols only)
if [ "$arch" = x86_64 ]; then
	check "ptfs-tool pci on the dump lists the guest's PCI functions, ids, class and driver as sysfs does" \
		python3 "$HERE/pci_agree.py" "$TOOL" "$WORK/vmcore.elf" "$WORK/serial.log" "$WORK"
	python3 "$HERE/pci_agree.py" "$TOOL" "$WORK/vmcore.elf" "$WORK/serial.log" "$WORK" 2>&1 | sed 's/^/    /' | head -8
	# ... and it sees a wrong answer: every driver the guest named renamed
	sed 's/^\(ptfs-pci: [^ ]* [^ ]* [^ ]* [^ ]*\) [^ -][^ ]*/\1 not-this-driver/' "$WORK/serial.log" \
		>"$TMP/serial-perturbed.log"
	check "the PCI comparison fails where the guest's drivers are renamed" \
		sh -c "! python3 '$HERE/pci_agree.py' '$TOOL' '$WORK/vmcore.elf' '$TMP/serial-perturbed.log' >/dev/null 2>&1"
fi
report
exit $?
