#!/bin/sh
# Builds the initramfs of the QEMU IOMMU test (README.md here, "IOMMUs"): a
# static busybox, the guest kernel's virtio modules (those it has as
# modules: Debian's amd64 kernel builds virtio_pci, virtio_blk and
# virtio_net as modules), the test module ptfs_iommu_probe.ko, and an /init
# that loads them, makes both devices do DMA (reads the disk; brings the
# network up and asks QEMU's DHCP server for an address, then pings it),
# loads the test module, copies its report from the kernel log to the
# console, prints its PCI functions from sysfs (`ptfs-pci:` lines,
# pci_agree.py), prints PTFS-READY and idles.  No root needed (cpio of a scratch
# directory).
#
# usage: mkinitramfs_iommu.sh OUT.cpio MODULES_DIR PROBE.ko
#   BUSYBOX may be set in the environment (default /bin/busybox).
set -eu
out=$1 moddir=$2 probe=$3
busybox=${BUSYBOX:-/bin/busybox}

stage=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/modules" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/tmp"
cp "$busybox" "$stage/bin/busybox"
if command -v readelf >/dev/null && readelf -l "$busybox" | grep -q INTERP; then
	echo "mkinitramfs_iommu.sh: $busybox is not a static executable (busybox-static)" >&2
	exit 1
fi
# In dependency order (their .modinfo depends=; no modules.dep in an unpacked .deb: depmod makes it
# at install).
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk failover net_failover virtio_net"
for m in $mods; do
	ko=$(find "$moddir/kernel" -name "$m.ko*" | head -n 1)
	[ -n "$ko" ] || continue   # built in
	case $ko in
	*.ko.xz) xz -dc "$ko" >"$stage/lib/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$ko" >"$stage/lib/modules/$m.ko" ;;
	*) cp "$ko" "$stage/lib/modules/$m.ko" ;;
	esac
done
cp "$probe" "$stage/lib/modules/ptfs_iommu_probe.ko"

cat >"$stage/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in $mods; do
	[ -f /lib/modules/\$m.ko ] && { insmod /lib/modules/\$m.ko || echo "ptfs-init: insmod \$m failed"; }
done
# DMA by both devices through the IOMMU.
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 0.2; done
echo "ptfs-init: disk \$(dd if=/dev/vda bs=4096 skip=7 count=1 2>/dev/null | od -An -tx1 -N4)"
ip link set eth0 up
udhcpc -i eth0 -n -q -t 3 -T 1 -s /bin/true >/dev/null 2>&1 && echo "ptfs-init: dhcp answered"
ip addr add 10.0.2.15/24 dev eth0 2>/dev/null
ping -c 2 -W 1 10.0.2.2 >/dev/null 2>&1 && echo "ptfs-init: ping answered"
echo "ptfs-init: iommu groups \$(ls /sys/kernel/iommu_groups | wc -l)"
insmod /lib/modules/ptfs_iommu_probe.ko || echo "ptfs-init: insmod ptfs_iommu_probe failed"
dmesg | grep -E 'ptfs-dma|DMAR|AMD-Vi|smmu|iommu' 
# The guest's PCI functions as sysfs has them (pci_agree.py): BDF, ids, class, driver.
for d in /sys/bus/pci/devices/*; do
	drv=-
	[ -e \$d/driver ] && drv=\$(basename \$(readlink \$d/driver))
	echo "ptfs-pci: \${d##*/} \$(cat \$d/vendor) \$(cat \$d/device) \$(cat \$d/class) \$drv"
done
echo PTFS-READY
while :; do sleep 3600; done
EOF
chmod 755 "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out"
