# Sourced by scripts/test, scripts/demo and .ci/run: installs the Debian 12
# packages ptfs needs to build and test, when any is missing.  Needs root
# (apt-get); as another user it names what to install and fails.
PTFS_PACKAGES=(build-essential meson ninja-build pkg-config libfuse3-dev fuse3
	libarchive-dev check zstd xz-utils zip unzip gzip tar diffutils findutils
	util-linux valgrind strace groff-base python3 librsvg2-bin libkdumpfile-dev libbpf-dev
	libpci-dev pci.ids)

# The qemu suite's (check_tests/qemu/README.md): QEMU, a static busybox,
# cpio and makedumpfile; its IOMMU tests build a guest module (libelf1 for
# the headers' objtool, the arm64 cross compiler).  Its guest kernels come
# from ptfs_fetch_kernels.
PTFS_QEMU_PACKAGES=(qemu-system-x86 qemu-system-arm busybox-static cpio makedumpfile
	libelf1 gcc-aarch64-linux-gnu libc6-dev-arm64-cross)

# Debian's guest kernels for the qemu suite, and the IOMMU tests' kernels
# with their headers, unpacked from their .debs into ~/.cache/ptfs-qemu*
# (never installed; check_tests/qemu/fetch_kernel.sh); the generic amd64
# one (--iommu amd64) is also qemu-x86-64-5level's, booted with pti=on.
ptfs_fetch_kernels() {
	check_tests/qemu/fetch_kernel.sh && check_tests/qemu/fetch_kernel.sh arm64 &&
		check_tests/qemu/fetch_kernel.sh --iommu amd64 &&
		check_tests/qemu/fetch_kernel.sh --iommu arm64
}

ptfs_install_deps() {
	local missing=() p
	for p in "${PTFS_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing packages: ${missing[*]}" >&2
		echo "install them with: sudo apt-get install ${missing[*]}" >&2
		return 2
	fi
	DEBIAN_FRONTEND=noninteractive apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Configures (once) and builds ptfs in ./build.  PTFS_WERROR=1 (.ci/run)
# builds with -Werror: a new warning fails CI instead of scrolling by.
ptfs_build() {
	local opts=()
	[ "${PTFS_WERROR:-0}" = 1 ] && opts+=(--werror)
	if [ -f build/build.ninja ]; then
		# an existing build dir gets the same setting, never a stale one
		[ "${#opts[@]}" -eq 0 ] || meson configure build -Dwerror=true >/dev/null
	else
		meson setup build "${opts[@]}" >/dev/null
	fi
	ninja -C build
}
