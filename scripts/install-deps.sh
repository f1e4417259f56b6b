#!/usr/bin/env bash
# Installs the Debian packages goeq needs (GL/EGL through Mesa, Xvfb, the X11
# headers GLFW builds against, pkg-config, xdotool for the pointer tests,
# setxkbmap for a keyboard layout's test;
# with the argument "test" also Chromium, which the dashboard test drives,
# openssh for the ssh launch test, and Teem's unu, which writes the NRRD
# volumes a test reads; with "peer" ParaView under Open MPI,
# which make bench-peer compares goeq against)
# when any is missing. Quiet and fast when everything is present.
set -euo pipefail
packages=(
  ca-certificates curl unzip pkg-config gcc libc6-dev
  libegl-dev libegl-mesa0 libgl1-mesa-dri libgl1-mesa-dev libgles-dev
  xvfb xauth xdotool x11-xkb-utils libx11-dev libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev libxxf86vm-dev
)
if [ "${1:-}" = test ]; then
  packages+=(chromium openssh-server openssh-client teem-apps)
fi
if [ "${1:-}" = peer ]; then
  packages+=(paraview python3-paraview python3-mpi4py openmpi-bin)
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
