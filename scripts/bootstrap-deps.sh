#!/usr/bin/env bash
# Installs the Debian 12 packages sparsemap builds and tests with (docs/design.md, "Dependencies").
# Idempotent: installs only what is missing, and prints nothing when everything is present.
# Needs root (or passwordless sudo) only when something is missing.
set -euo pipefail

packages=(
  cmake g++ ninja-build make pkg-config
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev zlib1g-dev libeigen3-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libtorch-dev
  libopenmpi-dev openmpi-bin
  gnuplot-nox
  pybind11-dev python3-dev python3-numpy python3-pytest
  chromium
  clang libclang-rt-14-dev libomp-14-dev
  dataset-fashion-mnist bible-kjv
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
((${#missing[@]} == 0)) && exit 0

echo "bootstrap-deps: installing ${#missing[@]} Debian package(s): ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "bootstrap-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "bootstrap-deps: done"
