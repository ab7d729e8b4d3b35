# Sourced by dev/run and dev/test: install what is missing with apt-get.
# shellcheck shell=bash

latnice_need_packages() {
        local missing=() p
        for p in "$@"; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
                        missing+=("$p")
        done
        [ ${#missing[@]} -eq 0 ] && return 0
        echo "dev: installing ${missing[*]}" >&2
        local sudo=()
        [ "$(id -u)" -ne 0 ] && sudo=(sudo)
        if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
                --no-install-recommends "${missing[@]}" >/dev/null; then
                "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || true
                "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
                        --no-install-recommends "${missing[@]}" >/dev/null
        fi
}

# Build dependencies.
LATNICE_BUILD_PACKAGES=(
        gcc pkg-config meson ninja-build scdoc
        libsystemd-dev libnl-3-dev libnl-genl-3-dev libinih-dev libsmartcols-dev zlib1g-dev
        libpipewire-0.3-dev
)
# What the tests use on top.
LATNICE_TEST_PACKAGES=(
        clang libclang-rt-14-dev dbus systemd util-linux procps python3 groff-base zsh
        mmdebstrap e2fsprogs lintian pipewire pipewire-bin wireplumber
)
# What tests/podman-kube-play.sh (LATNICE_TEST_PODMAN=1) uses on top: the
# engine, the pod's infra init, runc (crun refuses hybrid cgroup hosts) and
# python3's yaml for the pod spec. mmdebstrap is among the test packages.
LATNICE_PODMAN_PACKAGES=(
        podman catatonit runc python3-yaml
)
# What dev/build-deb (the Debian package, debian/) needs on top of the build
# dependencies: debhelper, and debian/control's test-only build dependencies.
# lintian (dev/build-deb --lintian, in dev/test) is among the test packages.
LATNICE_DEB_PACKAGES=(
        debhelper dpkg-dev systemd groff-base zsh python3
)
