#!/bin/bash
# test_mount_more.sh — the real ptfs mounted, part 2 (test_mount.sh is part 1):
# its options, bad input (exit 2, one E_ line, nothing mounted), foreground
# and SIGTERM, fstab lines, quiet start and dead mount points, load errors,
# long names, CTX/entries, what the kernel is told (PARALLEL_DIROPS, no
# OPENDIR), amd-gpuvm and the native sources, interrupts of a busy daemon,
# pa/, relocated tables and a huge va/.
#
# Environment and exit status as test_mount.sh (check_tests/meson.build sets
# them): 77 (skip) without /dev/fuse unless CI=true.  Readiness is polled and
# every mount undone by the EXIT trap (mount_lib.sh).

set -u
export LC_ALL=C

PTFS=${PTFS:?PTFS must name the ptfs binary}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}
PTFS=$(readlink -f "$PTFS")
HERE=$(dirname "$(readlink -f "$0")")
FIX=$(readlink -f "$FIX")

. "$(dirname "$0")/mount_lib.sh"

need_fuse
ml_tmpdir mount_more

T="$FIX/turing-mixed.tar.gz"   # the capture most checks mount

# ---- options ------------------------------------------------------------------

M="$TMP/opt"
if do_mount "$T" "$M" -o all_entries; then
	check "-o all_entries lists zero entries" test "$(ls "$M/pdb0/pde3" | tr '\n' ' ')" = "0 1 2 3 "
	do_umount "$M"
else
	bad "-o all_entries: mounts"
fi
# fstab: mount.fuse3 runs `ptfs SOURCE MNT -o OPTS` with the fstab noise in OPTS
if do_mount "$T" "$M" -o ro,noauto,user,nofail,_netdev,defaults,x-systemd.automount,rw; then
	check "fstab-style options are accepted" test -f "$M/pdb0/pde3/0/entry"
	do_umount "$M"
else
	bad "fstab-style options are accepted"
fi
check "-V prints the version" bash -c '"$1" -V 2>&1 | grep -q "^ptfs version "' _ "$PTFS"
check "-h prints the usage" bash -c '"$1" -h 2>&1 | grep -q "usage: ptfs \[options\] CAPTURE MOUNTPOINT"' _ "$PTFS"

# ---- bad input: exit 2, one E_ line, nothing mounted --------------------------

mkdir -p "$M" "$TMP/bad1" "$TMP/bad2"
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\nadress = 1\n' >"$TMP/bad1/capture.ini"
head -c 300 "$T" >"$TMP/bad2.tar.gz"
for b in "$TMP/bad1" "$TMP/bad2.tar.gz" "$TMP/missing.tar.gz" "$TMP/bad2"; do
	"$PTFS" "$b" "$M" 2>"$TMP/bad.err"
	rc=$?
	name=${b#"$TMP"/}
	check "bad capture $name: exits 2" test $rc = 2
	check "bad capture $name: one line 'ptfs: E_...: ...'" \
		bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -Eq "^ptfs: E_[A-Z]+: .+" "$1"' _ "$TMP/bad.err"
	check "bad capture $name: nothing mounted" bash -c '! mountpoint -q "$1"' _ "$M"
	mountpoint -q "$M" && fusermount3 -u "$M"
done
"$PTFS" "$T" 2>"$TMP/bad.err"
check "no mountpoint: exits 2 with E_USAGE" bash -c '[ $1 = 2 ] && grep -q "^ptfs: E_USAGE" "$2"' _ $? "$TMP/bad.err"
"$PTFS" "$T" "$TMP/no/such/dir" 2>"$TMP/bad.err"
check "a missing mount point: exits 2 with one E_USAGE line" \
	bash -c '[ $1 = 2 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "^ptfs: E_USAGE: mount point" "$2"' _ $? "$TMP/bad.err"
"$PTFS" "$T" "$M" extra 2>"$TMP/bad.err"
check "too many arguments: exits 2 with E_USAGE" bash -c '[ $1 = 2 ] && grep -q "^ptfs: E_USAGE" "$2"' _ $? "$TMP/bad.err"
"$PTFS" "$T" "$M" -o no_such_option 2>"$TMP/bad.err"
rc=$?
check "an unknown option: exits 2 with E_USAGE, nothing mounted" \
	bash -c '[ $1 = 2 ] && grep -q "^ptfs: E_USAGE" "$3" && ! mountpoint -q "$2"' _ $rc "$M" "$TMP/bad.err"

# ---- foreground: SIGTERM unmounts cleanly ------------------------------------

if start_fg "$T" "$M"; then
	pid=$FG_PID
	ok "-f: mounts in the foreground"
	check "-f: serves while in the foreground" test -f "$M/capture"
	kill -TERM $pid
	wait_exit $pid 30
	check "-f: SIGTERM exits 0" test "$ST" = 0
	check "-f: SIGTERM unmounts" bash -c '! mountpoint -q "$1"' _ "$M"
else
	bad "-f: mounts in the foreground"
fi
# single-threaded serving gives the same tree
if do_mount "$T" "$M" -s && do_mount "$T" "$TMP/mt"; then
	check "-s serves the same tree as the multithreaded loop" \
		diff -r --no-dereference "$M" "$TMP/mt"
	do_umount "$M"
	do_umount "$TMP/mt"
else
	bad "-s: mounts"
fi


# ---- fstab: mount -t fuse.ptfs and an fstab line (issue #10 item 8) --------
# mount(8) runs ptfs through mount.fuse3, which starts the program named by
# the type with /bin/sh -c.  mount(8) (util-linux 2.38) drops PATH from the
# helper's environment, so the shell searches its default path
# (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin): ptfs must be
# installed there (ptfs(1) FSTAB says so).  To test that without touching the
# machine, a private mount namespace bind-mounts a directory holding a ptfs
# link on /usr/local/sbin, the first directory of that path; PATH names the
# directory too, as the caller's would.  The inner script unmounts whatever
# it mounted before the namespace goes away.
if [ "$(id -u)" != 0 ]; then
	echo "SKIP fstab: mount -t fuse.ptfs and -T FSTAB need root (running as uid $(id -u))"
else
	FB="$TMP/fstab-bin"
	MF="$TMP/fstab-mnt"
	FO="$TMP/fstab-out"
	mkdir -p "$FB" "$MF" "$FO"
	ln -s "$PTFS" "$FB/ptfs"
	printf '%s %s fuse.ptfs ro,noauto,all_entries 0 0\n' "$T" "$MF" >"$TMP/fstab"
	PATH="$FB:$PATH" unshare --mount --propagation private bash -c '
		fb=$1 cap=$2 mnt=$3 fstab=$4 out=$5
		trap "mountpoint -q \"\$mnt\" && fusermount3 -u \"\$mnt\"" EXIT
		mount --bind "$fb" /usr/local/sbin || exit 3
		up() {
			local deadline=$((SECONDS + 10))
			until mountpoint -q "$mnt"; do
				[ $SECONDS -lt $deadline ] || return 1
				sleep 0.02
			done
		}
		mount -t fuse.ptfs "$cap" "$mnt" 2>"$out/t.err"
		echo $? >"$out/t.rc"
		if up; then
			grep -F " $mnt " /proc/self/mounts >"$out/t.mounts"
			cat "$mnt/capture" >"$out/t.capture"
			fusermount3 -u "$mnt"
			echo $? >"$out/t.umount"
		fi
		mount -T "$fstab" "$mnt" 2>"$out/f.err"
		echo $? >"$out/f.rc"
		if up; then
			ls -v "$mnt/pdb0/pde3" | tr "\n" " " >"$out/f.ls"
			fusermount3 -u "$mnt"
			echo $? >"$out/f.umount"
		fi
		exit 0
	' _ "$FB" "$T" "$MF" "$TMP/fstab" "$FO" >"$TMP/fstab.log" 2>&1
	check "fstab: a private mount namespace with ptfs on the default path" test $? = 0
	sed 's/^/    /' "$TMP/fstab.log" "$FO"/*.err 2>/dev/null
	check "fstab: mount -t fuse.ptfs CAPTURE MNT exits 0" grep -qsx 0 "$FO/t.rc"
	check "fstab: the mount is type fuse.ptfs, read-only, with the capture as source" \
		grep -Eqs "^$T $MF fuse\\.ptfs ro," "$FO/t.mounts"
	check "fstab: mount -t fuse.ptfs serves the capture" \
		bash -c 'grep -qsx "source: turing-mixed.tar.gz" "$1" && grep -qsx "context: pdb1 sysmem:0x100004000" "$1"' _ "$FO/t.capture"
	check "fstab: fusermount3 -u unmounts it" grep -qsx 0 "$FO/t.umount"
	check "fstab: mount -T FSTAB MNT (an fstab line) exits 0" grep -qsx 0 "$FO/f.rc"
	check "fstab: the fstab line's all_entries reaches ptfs (zero entries listed)" \
		test "$(cat "$FO/f.ls" 2>/dev/null)" = "0 1 2 3 "
	check "fstab: fusermount3 -u unmounts the fstab mount" grep -qsx 0 "$FO/f.umount"
	check "fstab: nothing stays mounted outside the namespace" not_mounted "$MF"
fi

# ---- quiet start, version, stacked and dead mount points -----------------------

# A clean -f mount and unmount prints nothing (libfuse 3.14 warned about the
# unset max_idle_threads on every start).
if start_fg "$T" "$M"; then
	pid=$FG_PID
	fusermount3 -u "$M"
	wait_exit $pid 30
	check "-f: clean mount and unmount exit 0" test "$ST" = 0
	check "-f: nothing on stderr for a clean mount and unmount" test ! -s "$M.err"
else
	bad "-f: mounts for the quiet test"
fi
if start_fg "$T" "$M" -- -o max_threads=2; then
	pid=$FG_PID
	check "-o max_threads=2 serves" test -f "$M/capture"
	fusermount3 -u "$M"
	wait_exit $pid 30
	check "-o max_threads=2: nothing on stderr" test ! -s "$M.err"
else
	bad "-o max_threads=2: mounts"
fi
"$PTFS" "$T" "$M" -o max_threads=0 2>"$TMP/bad.err"
rc=$?
check "-o max_threads=0: exits 2 with one E_USAGE line, nothing mounted" \
	bash -c '[ $1 = 2 ] && [ "$(wc -l <"$3")" = 1 ] && grep -q "^ptfs: E_USAGE: max_threads=0" "$3" && ! mountpoint -q "$2"' _ $rc "$M" "$TMP/bad.err"
check "--version: the first line is ptfs's" bash -c '[ "$("$1" --version 2>&1 | head -1)" = "ptfs version $("$1" -V | head -1 | cut -d" " -f3)" ] && "$1" --version 2>&1 | head -1 | grep -q "^ptfs version [0-9]"' _ "$PTFS"

if do_mount "$T" "$M"; then
	"$PTFS" "$FIX/gart-cosim.tar.gz" "$M" 2>"$TMP/stack.err"
	rc=$?
	check "a mount point already mounted: exits 2" test $rc = 2
	check "a mount point already mounted: one line naming the mount" \
		bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "^ptfs: E_USAGE: mount point .* already has a mount (.*turing-mixed.tar.gz, type fuse.ptfs)" "$1"' _ "$TMP/stack.err"
	check "a mount point already mounted: nothing stacked" \
		bash -c '[ "$(grep -c " $1 " /proc/self/mountinfo)" = 1 ] && grep -q "^format: nv-gmmu-ver2" "$1/capture"' _ "$M"
	do_umount "$M"
else
	bad "mount for the stacking test"
fi
# SIGKILL leaves a dead FUSE mount (stat gives ENOTCONN)
mkdir -p "$TMP/dead"
env --default-signal=INT,TERM "$PTFS" -f "$T" "$TMP/dead" 2>/dev/null &
pid=$!
PIDS+=("$pid")
MOUNTS+=("$TMP/dead")
if wait_mounted "$TMP/dead"; then
	kill -KILL $pid
	wait_exit $pid 30 2>/dev/null   # bash reports the kill
	"$PTFS" "$T" "$TMP/dead" 2>"$TMP/dead.err"
	rc=$?
	check "a dead FUSE mount: exits 2 with one line saying to run fusermount3 -u first" \
		bash -c '[ $1 = 2 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "dead FUSE mount.*run '"'"'fusermount3 -u $3'"'"' first" "$2"' _ $rc "$TMP/dead.err" "$TMP/dead"
	fusermount3 -u "$TMP/dead"
	check "a dead FUSE mount: mounts again after fusermount3 -u" do_mount "$T" "$TMP/dead"
	do_umount "$TMP/dead"
else
	bad "mount for the dead-mount test"
fi

# ---- load errors and warnings name the capture, escaped ------------------------

"$PTFS" "$TMP/bad1" "$M" 2>"$TMP/bad.err"
check "a load error names the capture, as ptfs-tool does" \
	bash -c 'grep -q "^ptfs: E_VALUE: $1: capture.ini:4: " "$2"' _ "$TMP/bad1" "$TMP/bad.err"
mkdir -p "$TMP/iniarg"
(cd "$TMP/iniarg" && tar xzf "$FIX/gart-umr-kat.tar.gz")
"$PTFS" "$TMP/iniarg/capture.ini" "$M" 2>"$TMP/bad.err"
rc=$?
check "capture.ini itself: exits 2 with one line saying what to pass, nothing mounted" \
	bash -c '[ $1 = 2 ] && [ "$(wc -l <"$3")" = 1 ] && grep -q "^ptfs: E_USAGE: .*capture.ini is a capture.ini, not a capture: pass the directory holding it" "$3" && ! mountpoint -q "$2"' _ $rc "$M" "$TMP/bad.err"
ESC=$(printf '\033') BEL=$(printf '\007')
EDIR="$TMP/cap${ESC}[31m${BEL}x"
cp -r "$TMP/iniarg" "$EDIR"
printf 'abc' >>"$EDIR/mem/vram-902000.bin"
if do_mount "$EDIR" "$M"; then
	check "a blob that is not whole entries: ptfs warns on load, with the capture escaped" \
		bash -c 'grep -qF "ptfs: warning: $1: [memory vram0] (mem/vram-902000.bin): " "$2" && ! grep -q "$3" "$2"' \
		_ "$TMP/cap\\x1b[31m\\x07x" "$M.err" "$ESC"
	do_umount "$M"
else
	bad "mount of a capture with an odd blob"
fi
"$PTFS" "$EDIR/missing" "$M" 2>"$TMP/bad.err"
check "a load error escapes the capture's name" \
	bash -c 'grep -qF "cap\\x1b[31m\\x07x/missing" "$1" && ! grep -q "$2\|$3" "$1"' _ "$TMP/bad.err" "$ESC" "$BEL"

# ---- every option ptfs(1) documents, on a real mount ---------------------------

# each serves the same tree as a mount without options (max_read=4096: files
# longer than one read come in several)
if do_mount "$T" "$TMP/ref"; then
	for o in allow_other allow_root max_read=65536 max_read=4096; do
		if do_mount "$T" "$M" -o "$o"; then
			# one mount, still served after FUSE INIT, with the option in effect
			check "-o $o: one live mount" bash -c '[ "$(grep -c " $1 " /proc/self/mountinfo)" = 1 ] && stat -f "$1" >/dev/null' _ "$M"
			case $o in max_read=*)
				check "-o $o: the kernel has it" bash -c 'grep " $1 " /proc/self/mountinfo | grep -q "[ ,]$2\(,\|$\)"' _ "$M" "$o" ;;
			esac
			check "-o $o: serves the same tree" diff -r --no-dereference "$TMP/ref" "$M"
			do_umount "$M"
		else
			bad "-o $o: mounts"
		fi
	done
	do_umount "$TMP/ref"
else
	bad "reference mount for the option tests"
fi
if start_fg "$T" "$M" -- -d; then
	pid=$FG_PID
	check "-d: serves" test -f "$M/capture"
	check "-d: prints FUSE requests" grep -q "INIT" "$M.err"
	fusermount3 -u "$M"
	wait_exit $pid 30
	check "-d: exits 0 on unmount" test "$ST" = 0
else
	bad "-d: mounts"
fi
check "--help exits 0 with the usage" bash -c '"$1" --help 2>&1 | grep -q "usage: ptfs \[options\] CAPTURE MOUNTPOINT"' _ "$PTFS"

# ---- names longer than statfs's f_namemax --------------------------------------

if do_mount "$T" "$M"; then
	check "statfs: f_namemax is 255" test "$(stat -f -c %l "$M")" = 255
	long=$(printf 'a%.0s' $(seq 256))
	err=$(stat "$M/$long" 2>&1)
	check "a 256-byte name: ENAMETOOLONG" bash -c 'case $1 in *"File name too long"*) exit 0 ;; esac; exit 1' _ "$err"
	err=$(stat "$M/pdb0/$(printf 'b%.0s' $(seq 255))" 2>&1)
	check "a 255-byte name: an ordinary ENOENT" bash -c 'case $1 in *"No such file"*) exit 0 ;; esac; exit 1' _ "$err"
	do_umount "$M"
else
	bad "mount for the name-length test"
fi

# ---- CTX/entries: the flat view --------------------------------------------

# grep over the one file finds as many entries as grep -r over the tree, for
# a few keys on every fixture; dd in odd blocks reads what cat reads; the
# size stat gives is the bytes read.
for cap in "$FIX"/*.tar.gz; do
	name=$(basename "$cap" .tar.gz)
	if ! do_mount "$cap" "$M"; then
		bad "$name: mounts for the entries checks"
		continue
	fi
	for ctx in $(cd "$M" && ls -d */ | tr -d / | grep -vx pa); do
		[ -e "$M/$ctx/maps" ] || continue   # an [iommu] section's tree (its own info, no maps): no context
		E="$M/$ctx/entries"
		root=$(ls "$M/$ctx" | grep -vx 'entries\|info\|maps\|map.svg\|va\|walk\|vs')
		cat "$E" >"$TMP/entries.cat"
		check "$name/$ctx/entries: st_size is the bytes read" test "$(stat -c %s "$E")" = "$(wc -c <"$TMP/entries.cat")"
		check "$name/$ctx/entries: one line per entry file" test "$(wc -l <"$TMP/entries.cat")" = \
			"$(find "$M/$ctx/$root" -type f | wc -l)"
		for kv in read_only=1 state=mapped state=pointer valid=1 aperture_name=video privilege=1; do
			k=${kv%%=*} v=${kv#*=}
			flat=$(grep -cE " $k=$v( |\$)" "$E")
			tree=$(grep -rlx "$k: $v" "$M/$ctx/$root" | wc -l)
			check "$name/$ctx: grep -c '$kv' entries = grep -rl '$k: $v' ($tree)" test "$flat" = "$tree"
		done
		for bs in 1000 4097 65535 131073; do
			dd if="$E" bs=$bs status=none | cmp -s - "$TMP/entries.cat" ||
				bad "$name/$ctx/entries: dd bs=$bs differs from cat"
		done
		ok "$name/$ctx/entries: dd at odd block sizes equals cat"
		check "$name/$ctx/entries: dd skip into the middle" bash -c \
			'cmp -s <(dd if="$1" bs=4097 skip=3 status=none) <(tail -c +$((3 * 4097 + 1)) "$2")' _ "$E" "$TMP/entries.cat"
	done
	do_umount "$M"
done
if do_mount "$FIX/turing-mixed.tar.gz" "$M" -o all_entries; then
	E="$M/pdb0/entries"
	cat "$E" >"$TMP/entries.cat"
	check "-o all_entries: entries lists zero entries too ($(wc -c <"$TMP/entries.cat") bytes)" \
		test "$(grep -c ' raw=0x0* ' "$TMP/entries.cat")" -gt 0
	check "-o all_entries: entries st_size is the bytes read" test "$(stat -c %s "$E")" = "$(wc -c <"$TMP/entries.cat")"
	check "-o all_entries: dd bs=65537 equals cat" bash -c 'dd if="$1" bs=65537 status=none | cmp -s - "$2"' _ "$E" "$TMP/entries.cat"
	do_umount "$M"
else
	bad "-o all_entries: mounts for the entries checks"
fi

# ---- INIT: the kernel is told FUSE_PARALLEL_DIROPS (libfuse 3.14 drops the bit) ----
# The reply as it crosses /dev/fuse (strace), not as `ptfs -d` prints it: -d
# shows libfuse's reply before ptfs adds the bit.  INIT's reply is the first
# 64-byte reply body; its flags are bytes 12..15, little endian; bit 18.
if command -v strace >/dev/null; then
	M=$TMP/pdirops
	if start_fg "$FIX/turing-mixed.tar.gz" "$M" strace -f -e trace=writev -e write=all \
		-o "$TMP/init.strace" --; then
		fusermount3 -u "$M"
		wait_exit "$FG_PID" 20
	fi
	f=$(awk '/ 64 bytes in buffer 1$/ { getline; print $18 $17 $16 $15; exit }' "$TMP/init.strace")
	check "INIT reply: FUSE_PARALLEL_DIROPS (bit 18) set (flags 0x$f)" \
		test -n "$f" -a $(( (0x${f:-0} >> 18) & 1 )) = 1
fi

# ---- OPENDIR: answered ENOSYS once, then never sent (FUSE_CAP_NO_OPENDIR_SUPPORT) ----
# A listing resumes by cookie and needs no per-open state, so the kernel opens
# directories by itself (keeping cache_readdir): one OPENDIR for the whole
# mount, no RELEASEDIR, whatever is listed (`ptfs -d` counts the requests).
M=$TMP/noopendir
if start_fg "$FIX/turing-mixed.tar.gz" "$M" -- -d; then
	(cd "$M" && find . | LC_ALL=C sort) >"$TMP/noopendir.find"
	n=$(wc -l <"$TMP/noopendir.find")
	ls -R "$M" >/dev/null
	fusermount3 -u "$M"
	wait_exit "$FG_PID" 20
	o=$(grep -c 'opcode: OPENDIR ' "$M.err")
	r=$(grep -c 'opcode: RELEASEDIR ' "$M.err")
	check "no OPENDIR after the first ($o for $n names), no RELEASEDIR ($r)" \
		test "$n" -gt 100 -a "$o" = 1 -a "$r" = 0
	rm -rf "$TMP/noopendir.exp"
	"$(dirname "$PTFS")/../cli/ptfs-tool" export "$FIX/turing-mixed.tar.gz" "$TMP/noopendir.exp"
	check "listings without OPENDIR are the exported tree" \
		cmp -s "$TMP/noopendir.find" <(cd "$TMP/noopendir.exp" && find . | LC_ALL=C sort)
fi

# ---- amd-gpuvm: a depth-2 VM's tree, translate_further and P leaves --------------------
M=$TMP/gpuvm
if do_mount "$FIX/amd-gfx9-vm.tar.gz" "$M"; then
	check "gpuvm: gfx.2 starts at pdb1" test -d "$M/gfx.2/pdb1/0/pdb0/0/ptb"
	check "gpuvm: translate_further entry is a directory with ptb_further/" \
		test -f "$M/gfx.2/pdb1/0/pdb0/0/ptb/1/ptb_further/0"
	check "gpuvm: a 1 GiB PDE-as-PTE is a file" grep -qx 'state: mapped' "$M/gfx.2/pdb1/0/pdb0/1"
	check "gpuvm: va link of the further page" \
		test "$(readlink "$M/gfx.2/va/0x000000200000")" = ../pdb1/0/pdb0/0/ptb/1/ptb_further/0
	check "gpuvm: walk file" grep -q 'result: mapped pa=vram:0x40000000 page=1G' "$M/gfx.2/walk/0x000040000000"
	check "gpuvm: maps merges the fragment run" grep -q '^0x000000000000-0x000000004000    16K   4K vram' "$M/gfx.1/maps"
	do_umount "$M"
else
	bad "mount amd-gfx9-vm"
fi
# ---- sources read natively: `ptfs run.envdef mnt`, `ptfs cpt.1234 mnt` (issue #13) ----
M=$TMP/umr
if do_mount "$FIX/umr-gfx9-gart.envdef" "$M"; then
	check "umr: capture says umr log" grep -qx 'source_kind: umr log' "$M/capture"
	check "umr: va/0x444000 links to pte/1092" test "$(readlink "$M/vmid0/va/0x444000")" = ../pte/1092
	check "umr: walk of a logged VA" grep -q '^result: mapped pa=sysmem:0x223886000 ' "$M/vmid0/walk/0x444000"
	check "umr: walk of an entry umr did not read" grep -q '^result: fault=not_captured' "$M/vmid0/walk/0x446000"
	check "umr: info says where BASE came from" grep -qx 'x-from-VM_CONTEXT0_PAGE_TABLE_BASE_ADDR: umr-gfx9-gart.envdef:7+8' "$M/vmid0/info"
	do_umount "$M"
else
	bad "mount of umr-gfx9-gart.envdef"
fi
M=$TMP/gem5
if do_mount "$FIX/gem5-m5out/cpt.1234" "$M" -o gfx=9; then
	check "gem5: capture says gem5 checkpoint" grep -qx 'source_kind: gem5 checkpoint' "$M/capture"
	check "gem5: vram store from 0" grep -q '^region: system.pc.south_bridge.gpu.deviceMem.store0 vram 0x0 16M ' "$M/capture"
	check "gem5: walk of VA 0" grep -q '^result: mapped pa=sysmem:0x200000 ' "$M/vmid0/walk/0x0"
	check "gem5: walk of VA 0x1000" grep -q '^result: mapped pa=vram:0x123000 ' "$M/vmid0/walk/0x1000"
	do_umount "$M"
else
	bad "mount of gem5-m5out/cpt.1234"
fi
M=$TMP/elfcore
if do_mount "$FIX/qemu-x86.elf" "$M"; then
	check "ELF core: capture says ELF core and where each root came from" bash -c '
		grep -qx "source_kind: ELF core" "$1" &&
		grep -q "^x-root-cpu1: cr3, cr4: QEMU note of cpu1 (QEMUCPUState at file offset 0x" "$1" &&
		grep -q "^x-root-kernel: cr3: VMCOREINFO SYMBOL(init_top_pgt)=" "$1"' _ "$M/capture"
	check "ELF core: segments are regions in place" grep -q '^region: load2 sysmem 0x100000000 4K qemu-x86.elf$' "$M/capture"
	for c in cpu0 cpu1 kernel; do
		check "ELF core: $c/va lists the 5 pages of qemu-x86.expect" test "$(ls "$M/$c/va" | tr '\n' ' ')" = \
			"0x0000000000200000 0x0000000000201000 0x0000000000400000 0x0000000100000000 0xffffffff80000000 "
	done
	check "ELF core: cpu1 walks 5-level (CR4.LA57 of its QEMU note)" \
		test "$(readlink "$M/cpu1/va/0x200abc")" = ../pml5/0/pml4/0/pdpt/0/pd/1/pt/0
	check "ELF core: info says where cr3 came from" grep -q '^x-source: cr3, cr4: QEMU note of cpu0 ' "$M/cpu0/info"
	do_umount "$M"
else
	bad "mount of qemu-x86.elf"
fi
M=$TMP/badgfx
mkdir -p "$M"
"$PTFS" "$FIX/umr-gfx9-gart.envdef" "$M" -o gfx=8 2>"$TMP/badgfx.err"
check "ptfs -o gfx=8: exit 2" test $? = 2
check "ptfs -o gfx=8: E_USAGE" grep -q 'E_USAGE: -o gfx=8' "$TMP/badgfx.err"
check "ptfs -o gfx=8: nothing mounted" not_mounted "$M"


# ---- issue 16 item 2: a busy daemon honours interrupts and SIGTERM ----
# A directory capture whose GART table is an 8 GiB sparse file (2^30 zero
# entries, mapped, so not known zero): listing pte/ reads for minutes.  An
# interrupted reader (timeout's SIGTERM: the kernel sends INTERRUPT) gets
# its error at once and the daemon keeps serving; SIGTERM to the daemon
# while a reader is stuck in the listing ends it and removes the mount.
SP=$TMP/sparse
mkdir -p "$SP/mem"
cat >"$SP/capture.ini" <<'EOF_INI'
[capture]
version = 1
format = amd-gart

[memory gart]
space = vram
base = 0x3ee600000
file = mem/table.bin

[gart gart0]
VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x3EE600000
VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x700000000
VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x73FFFFFFF
MC_VM_FB_LOCATION_BASE = 0x8000
MC_VM_FB_LOCATION_TOP = 0x83FF
MC_VM_SYSTEM_APERTURE_LOW_ADDR = 0
MC_VM_SYSTEM_APERTURE_HIGH_ADDR = 0xFFFB
EOF_INI
truncate -s 8G "$SP/mem/table.bin"
# ptfs knows the holes of a mapped file as zero (SEEK_HOLE), but records at
# most 4096 per file: 4097 invalid entries 8 KiB apart leave the rest of the
# 8 GiB as zero bytes that must be read
python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for i in range(4097):
    os.pwrite(fd, b"\x00\x00\x00\x20\x00\x00\x00\x00", i * 8192)' "$SP/mem/table.bin"
M=$TMP/busy
if start_fg "$SP" "$M" --; then
	t0=$SECONDS
	check "info of 2^30 mapped zero entries: bounded, says so" grep -q "^tables_truncated: true" "$M/gart0/info"
	check "... within 10 s" test $((SECONDS - t0)) -le 10
	t0=$SECONDS
	timeout -s INT 1 ls "$M/gart0/pte" >/dev/null 2>&1
	check "an interrupted listing returns within 5 s" test $((SECONDS - t0)) -le 5
	check "the daemon still serves after the interrupt" test -s "$M/gart0/info"
	ls "$M/gart0/pte" >/dev/null 2>&1 &
	LS_PID=$!
	sleep 0.5   # let the listing start (nothing to poll: it is a reader in D state)
	kill -TERM "$FG_PID"
	wait_exit "$FG_PID" 10
	check "SIGTERM ends a daemon busy in a long listing (exit $ST)" test "$ST" != 124
	check "... and the mount is gone" not_mounted "$M"
	kill "$LS_PID" 2>/dev/null
	wait "$LS_PID" 2>/dev/null
else
	bad "mount of the sparse GART directory capture"
fi


# ---- pa/SPACE/ADDR: who maps a physical byte (reverse lookup) --------------------
M=$TMP/pa
if do_mount "$T" "$M"; then
	check "pa/ lists the format's spaces" \
		test "$(ls "$M/pa" | tr '\n' ' ')" = "peer0 peer1 peer2 peer3 peer4 peer5 peer6 peer7 sysmem vidmem "
	check "pa/vidmem lists nothing" test -z "$(ls -A "$M/pa/vidmem")"
	# every mapped line of the .expect file: its PA's file names the context and VA
	fails=0 n=0
	while read -r ctx va state space pa _; do
		[ "$state" = mapped ] || continue
		n=$((n + 1))
		grep -q "^$ctx $va " "$M/pa/$space/$pa" || { fails=$((fails + 1)); echo "    pa/$space/$pa lacks $ctx $va"; }
	done < <(grep -v '^#' "$FIX/turing-mixed.expect")
	check "pa/SPACE/PA names the VA of all $n mapped .expect lines" test "$fails" = 0 -a "$n" -gt 0
	# aliases across contexts: SPT1 is shared by pdb0 and pdb1 (twice in pdb1)
	printf '%s\n' "pdb0 0x0000000400234 pde3/0/pde2/0/pde1/0/pde0/2/pte_small/0 -" \
		"pdb1 0x0000000200234 pde3/0/pde2/0/pde1/0/pde0/1/pte_small/0 -" \
		"pdb1 0x0000020400234 pde3/0/pde2/0/pde1/1/pde0/2/pte_small/0 -" >"$TMP/pa.want"
	cat "$M/pa/vidmem/0x10000234" >"$TMP/pa.got" 2>&1
	same "$TMP/pa.want" "$TMP/pa.got" "pa/vidmem/0x10000234: the aliases in pdb0 and pdb1"
	check "pa/ file equals ptfs-tool pa" bash -c 'cmp -s "$1" <("$2" pa "$3" vidmem:0x10000234)' _ \
		"$TMP/pa.got" "$(dirname "$PTFS")/../cli/ptfs-tool" "$T"
	err=$(cat "$M/pa/vidmem/0x7777000" 2>&1)
	check "pa/: an unmapped byte is ENOENT (ptfs-tool pa exits 1)" \
		bash -c 'case $1 in *"No such file"*) exit 0 ;; esac; exit 1' _ "$err"
	check "pa/: a bad space is ENOENT" test ! -e "$M/pa/vram/0x10000234"
	check "pa/: a bad address name is ENOENT" test ! -e "$M/pa/vidmem/0x1g"
	check "pa/: an address past the inode scheme is ENOENT" test ! -e "$M/pa/vidmem/0xffffffffffffffff"
	do_umount "$M"
else
	bad "mount turing-mixed for pa/"
fi

# ---- diff -r of relocated tables: entry_address, and the pointers' own words ----
TR="$FIX/turing-mixed-relocated.tar.gz"
if do_mount "$T" "$TMP/rb" && do_mount "$TR" "$TMP/ra"; then
	diff -r --no-dereference -x capture -x info -x maps -x entries "$TMP/rb" "$TMP/ra" >"$TMP/rd.out"
	# a leaf (a file not named entry) changes only in entry_address
	awk '/^diff /{f=$NF} /^[<>] /{sub(/:.*/, ""); print (f ~ /\/entry$/ ? "pointer" : "leaf"), $2}' \
		"$TMP/rd.out" | sort -u >"$TMP/rd.keys"
	printf '%s\n' "leaf entry_address" "pointer address" "pointer address_big" "pointer address_small" \
		"pointer entry_address" "pointer raw" >"$TMP/rd.want"
	same "$TMP/rd.want" "$TMP/rd.keys" "relocated tables: leaves change entry_address only; pointers also raw and address"
	do_umount "$TMP/ra"
	do_umount "$TMP/rb"
else
	bad "turing-mixed and turing-mixed-relocated: mount for diff -r"
fi

# ---- va/ of 2^20 entries, all invalid but non-zero after the first 10 -------
# A va/ request ends within its work budget once it has a link (issue 16):
# the listing must still hold every link, the kernel resuming from the
# cookie after each short reply.
VD="$TMP/vabudget.d"
mkdir -p "$VD"
printf '[capture]\nversion = 1\nformat = amd-gart\n[memory t]\nspace = vram\nbase = 0x100000\nfile = t.bin\n[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x100001\nVM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0xfffff\n' \
	>"$VD/capture.ini"
printf '\x00\x00\x00\x20\x00\x00\x00\x00' >"$VD/t.bin"    # 0x20000000: not valid, not zero
for _ in $(seq 20); do cat "$VD/t.bin" "$VD/t.bin" >"$VD/t2" && mv "$VD/t2" "$VD/t.bin"; done
for i in $(seq 0 9); do    # pages 0..9 valid: 0x2000i077
	printf "\\x77\\x$(printf '%x' "$i")0\\x00\\x20" | dd of="$VD/t.bin" bs=1 seek=$((8 * i)) conv=notrunc status=none
done
printf '\x77\x00\x00\x30' | dd of="$VD/t.bin" bs=1 seek=$((8 * ((1 << 20) - 1))) conv=notrunc status=none
if do_mount "$VD" "$TMP/vb"; then
	check "va/ over 2^20 invalid entries lists all 11 links" test "$(ls "$TMP/vb/g/va" | wc -l)" = 11
	check "va/: the link after the invalid run is there" \
		test "$(ls "$TMP/vb/g/va" | tail -n 1)" = "$(printf '0x%012x' $(( ((1 << 20) - 1) << 12 )))"
	do_umount "$TMP/vb"
else
	bad "mount the va/ budget capture"
fi

report
