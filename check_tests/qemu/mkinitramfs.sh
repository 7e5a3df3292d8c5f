#!/bin/sh
# Builds the guest initramfs of the QEMU agreement test (README.md here):
# a static busybox, the qemu_fw_cfg module of the guest kernel (so that
# `-device vmcoreinfo` can publish VMCOREINFO: Linux
# drivers/firmware/qemu_fw_cfg.c writes the note's address into the
# etc/vmcoreinfo fw_cfg file when it probes), ptfs-mapper (mapper.c, built
# static here) and an /init that mounts proc/sys, loads the module, starts
# sleeping processes and one ptfs-mapper per vCPU, prints PTFS-READY on the
# console and idles.  No root needed: the archive is written by cpio from a
# scratch directory (no device nodes; /init mounts devtmpfs for its console).
#
# usage: mkinitramfs.sh OUT.cpio MODULES_DIR NCPUS [MODE]
#   MODULES_DIR is the kernel's lib/modules/KVER (from /usr/lib/modules or
#   an unpacked linux-image .deb); NCPUS ptfs-mappers are started, none with
#   0 (every vCPU then idles in the kernel: the arm64 guest's, whose
#   gva2gpa truth is the kernel's); BUSYBOX and CC may be set in the
#   environment (default /bin/busybox, cc): CC builds the guest's static
#   programs (aarch64-linux-gnu-gcc for an arm64 guest), and an empty CC
#   builds none (no ptfs-procs or ptfs-family: no task check).
#   MODE `live`: each ptfs-mapper also waits on its mailbox page and maps
#   a new page when the host writes it (mapper.c; the qemu-live test).
set -eu
out=$1 moddir=$2 ncpus=$3 mode=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-/bin/busybox}
cc=${CC-cc}

stage=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/modules" "$stage/proc" "$stage/sys" \
	"$stage/dev" "$stage/tmp"

cp "$busybox" "$stage/bin/busybox"
# A dynamic busybox cannot run in an initramfs without its libraries.
if command -v readelf >/dev/null && readelf -l "$busybox" | grep -q INTERP; then
	echo "mkinitramfs.sh: $busybox is not a static executable (busybox-static)" >&2
	exit 1
fi

# The module, decompressed if the kernel package ships it compressed.
ko=$(find "$moddir/kernel/drivers/firmware" -name 'qemu_fw_cfg.ko*' | head -n 1)
if [ -z "$ko" ]; then
	echo "mkinitramfs.sh: no qemu_fw_cfg module under $moddir" >&2
	exit 1
fi
case $ko in
*.ko.xz) xz -dc "$ko" >"$stage/lib/modules/qemu_fw_cfg.ko" ;;
*.ko.zst) zstd -qdc "$ko" >"$stage/lib/modules/qemu_fw_cfg.ko" ;;
*.ko.gz) gzip -dc "$ko" >"$stage/lib/modules/qemu_fw_cfg.ko" ;;
*) cp "$ko" "$stage/lib/modules/qemu_fw_cfg.ko" ;;
esac

[ "$ncpus" = 0 ] || "$cc" -static -O2 -o "$stage/bin/ptfs-mapper" "$here/mapper.c"
# the guest's own list of processes and sampled PFNs (procs.c; the task check)
[ -z "$cc" ] || "$cc" -static -O2 -o "$stage/bin/ptfs-procs" "$here/procs.c"
# processes that share pages: MAP_SHARED, fork's copy-on-write, threads (family.c)
[ -z "$cc" ] || "$cc" -static -O2 -pthread -o "$stage/bin/ptfs-family" "$here/family.c"

cat >"$stage/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
insmod /lib/modules/qemu_fw_cfg.ko || echo "ptfs-init: insmod qemu_fw_cfg failed"
if [ -e /sys/firmware/qemu_fw_cfg/by_name/etc/vmcoreinfo ]; then
	echo "ptfs-init: vmcoreinfo published"
fi
# Page-table isolation as the kernel decided it: arch/x86/mm/pti.c prints
# "Kernel/User page tables isolation: enabled" (and "force enabled on
# command line." for pti=on on a CPU not flagged Meltdown-vulnerable) at
# KERN_INFO, which quiet keeps off the console, so the log is copied; and
# the kernel's verdict (arch/x86/kernel/cpu/bugs.c cpu_show_common():
# "Not affected" when the CPU lacks X86_BUG_CPU_MELTDOWN, as TCG's -cpu max
# does, whatever pti= says; else "Mitigation: PTI" or "Vulnerable").
dmesg | sed -n 's/^\[[^]]*\] //; s/^Kernel\/User page tables isolation: /ptfs-init: &/p'
echo "ptfs-init: meltdown: \$(cat /sys/devices/system/cpu/vulnerabilities/meltdown 2>&1)"
# Linux turns transparent huge pages off below 512 MiB of RAM
# (mm/huge_memory.c hugepage_init: "The admin can still enable it through /sys").
echo always >/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
# Sleepers: processes whose tables exist but are not loaded in any CR3.
for s in 1 2 3; do (while :; do sleep 1000; done) & done
n=0
while [ \$n -lt $ncpus ]; do
	/bin/ptfs-mapper \$n $mode >/tmp/mapper\$n &
	n=\$((n + 1))
done
n=0
while [ \$n -lt $ncpus ]; do
	until grep -q ready /tmp/mapper\$n 2>/dev/null; do sleep 0.1; done
	cat /tmp/mapper\$n
	n=\$((n + 1))
done
grep -i huge /proc/meminfo
# A parent, its forked child and two threads sharing pages (family.c): it
# prints one PTFS-FAMILY line once the child has broken its one
# copy-on-write page.
if [ -x /bin/ptfs-family ]; then
	/bin/ptfs-family >/tmp/family &
	until grep -q PTFS-FAMILY /tmp/family 2>/dev/null; do sleep 0.1; done
	cat /tmp/family
fi
# User processes now (those with an executable: kernel threads have none;
# a shell test, so that counting forks nothing),
# for ptfs-tool roots, which must find at least as many process tables.
np=0
for p in /proc/[0-9]*; do [ -e \$p/exe ] && np=\$((np + 1)); done
echo "ptfs-init: user processes \$np"
# The guest's PCI functions as sysfs has them (pci_agree.py, as the IOMMU
# test's /init prints them): BDF, ids, class, driver.
for d in /sys/bus/pci/devices/*; do
	[ -e \$d/vendor ] || continue
	drv=-
	[ -e \$d/driver ] && drv=\$(basename \$(readlink \$d/driver))
	echo "ptfs-pci: \${d##*/} \$(cat \$d/vendor) \$(cat \$d/device) \$(cat \$d/class) \$drv"
done
# The idle loop starts before ptfs-procs lists the processes, so that the
# list is the guest's at the dump (only ptfs-procs itself is gone by then).
(while :; do sleep 3600; done) &
sleep 0.5
[ -x /bin/ptfs-procs ] && /bin/ptfs-procs
echo PTFS-READY
wait
EOF
chmod 755 "$stage/init"

(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out"
