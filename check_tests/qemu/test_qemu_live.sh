#!/bin/bash
# test_qemu_live.sh — the qemu-live test (issue #33 item 4; README.md here,
# "Live"): a running Debian x86-64 guest mounted live through its QMP socket,
# its RAM a shared file.  live_test.py boots it, compares the live mount's
# walks with QEMU's gva2gpa while it is stopped, has the guest map a new
# page while it runs and finds it in the mount within the refresh time,
# checks that a `ptfs-tool snapshot` taken before the change does not map
# it, unmounts (the guest runs on), and ends the guest under a second mount
# (reads then fail with EIO and a log line).
#
# Environment (check_tests/qemu/meson.build): PTFS, PTFS_TOOL, PTFS_QEMU_WORK; optional
# PTFS_QEMU_KERNEL and BUSYBOX as for test_qemu.sh.
# Exit 0 pass, 1 fail, 77 skip (what is missing is printed) -- except under
# CI=true, where anything missing is a failure.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../mount_lib.sh"
PTFS=$(readlink -f "${PTFS:?PTFS must name the ptfs binary}")
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name the ptfs-tool binary}")
WORK=${PTFS_QEMU_WORK:?PTFS_QEMU_WORK must name a scratch directory}/qemu-live
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptfs-qemu
export BUSYBOX=${BUSYBOX:-/bin/busybox}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "qemu-live: FAIL (CI=true, no skipping): $*"
		exit 1
	fi
	echo "qemu-live: skipped: $*"
	exit 77
}
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed (Debian qemu-system-x86)"
command -v cpio >/dev/null || skip "cpio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -x "$BUSYBOX" ] || skip "$BUSYBOX is missing (Debian busybox-static)"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "/dev/shm is not writable (the guest's RAM file goes there)"
kernel=${PTFS_QEMU_KERNEL:-}
if [ -z "$kernel" ]; then
	for k in "$cache"/boot/vmlinuz-*-cloud-amd64 /boot/vmlinuz-*-cloud-amd64; do
		[ -f "$k" ] && { kernel=$k; break; }
	done
fi
[ -n "$kernel" ] && [ -r "$kernel" ] ||
	skip "no Debian cloud kernel for amd64 (check_tests/qemu/fetch_kernel.sh amd64 unpacks one)"
kver=${kernel##*/vmlinuz-}
moddir=$(dirname "$kernel")/../lib/modules/$kver
[ -d "$moddir" ] || moddir=$(dirname "$kernel")/../usr/lib/modules/$kver
[ -d "$moddir" ] || moddir=/usr/lib/modules/$kver
[ -d "$moddir" ] || skip "no modules for $kver beside $kernel or in /usr/lib/modules"
echo 'int main(void){return 0;}' >"${TMPDIR:-/tmp}/ptfs-qemu-cc.$$.c"
if ! ${CC:-cc} -static -o "${TMPDIR:-/tmp}/ptfs-qemu-cc.$$" "${TMPDIR:-/tmp}/ptfs-qemu-cc.$$.c" 2>/dev/null; then
	rm -f "${TMPDIR:-/tmp}/ptfs-qemu-cc.$$"*
	skip "${CC:-cc} cannot link a static program (Debian libc6-dev)"
fi
rm -f "${TMPDIR:-/tmp}/ptfs-qemu-cc.$$"*
need_fuse

mkdir -p "$WORK"
if ! "$HERE/mkinitramfs.sh" "$WORK/initrd.cpio" "$moddir" 2 live; then
	echo "qemu-live: FAIL: the initramfs builds"
	exit 1
fi
python3 "$HERE/live_test.py" --ptfs "$PTFS" --ptfs-tool "$TOOL" --kernel "$kernel" --initrd "$WORK/initrd.cpio" \
	--work "$WORK" --timeout 180
st=$?
# nothing of ours may stay mounted
mountpoint -q "$WORK/mnt" && fusermount3 -u "$WORK/mnt"
[ $st = 0 ] && echo "qemu-live: PASS" || { echo "qemu-live: FAIL (ptfs's log: $WORK/ptfs.log)"; sed 's/^/    /' "$WORK/ptfs.log" 2>/dev/null | head -20; }
exit $st
