#!/usr/bin/env bash
# Installs every build and test dependency of hloref from Debian's archive,
# and a project virtual environment .venv/ (git-ignored) with a pinned jax
# for the XLA:CPU differential tests (backends.xla_jax and
# conformance.xla_verifier_agreement skip with the reason without it).
# Idempotent: packages already present are no-ops, and an up-to-date .venv/
# costs one file comparison. Needs root (or sudo) for the Debian part.
# HLOREF_NO_VENV=1 skips the virtual environment; HLOREF_NO_BENCH_PEERS=1
# skips the benchmark-only peers (oneDNN, OpenBLAS); HLOREF_FUZZ_TOOLS=1
# adds clang-19 and libclang-rt-19-dev for the libFuzzer build
# (docs/fuzzing.md; nothing else needs them, so they are opt-in).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

PACKAGES=(
  cmake ninja-build g++ make git python3 python3-venv
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libabsl-dev libprotobuf-dev protobuf-compiler libeigen3-dev
  llvm-19-dev libzstd-dev libmpfr-dev libgmp-dev
)

# The packages among "$@" that are not installed, one per line.
missing_packages() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}

apt_install() {
  $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
      --no-install-recommends "$@"
}

# Optional packages: LABEL, what is lost without them, the packages. A
# failure to install them only warns.
install_optional() {
  local label="$1" without="$2"
  shift 2
  local missing_opt
  mapfile -t missing_opt < <(missing_packages "$@")
  if [ "${#missing_opt[@]}" -eq 0 ]; then
    echo "setup: $label present ($*)"
  else
    echo "setup: installing $label ${missing_opt[*]}"
    if ! apt_install "${missing_opt[@]}"; then
      echo "setup: WARNING: could not install ${missing_opt[*]}: $without" >&2
    fi
  fi
}

mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt_install "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# Benchmark-only peers of backends/cpu/bench/kernel_benchmark (issue 15):
# oneDNN and OpenBLAS from Debian's archive. Optional: when absent (or when
# HLOREF_NO_BENCH_PEERS=1) the benchmark builds without them and says so;
# nothing else uses them.
if [ "${HLOREF_NO_BENCH_PEERS:-0}" != "0" ]; then
  echo "setup: HLOREF_NO_BENCH_PEERS set: no oneDNN / OpenBLAS benchmark peers"
else
  install_optional "benchmark peers" \
    "the kernel benchmark builds without those peers" \
    libdnnl-dev libopenblas-dev
fi

# Fuzz-only tools (docs/fuzzing.md): clang 19 and its runtime libraries
# (libFuzzer, ASan, UBSan) for -DHLOREF_FUZZ=ON. Opt-in: the default build
# and CI's normal path never use them.
if [ "${HLOREF_FUZZ_TOOLS:-0}" != "0" ]; then
  install_optional "fuzz tools" \
    "the fuzz targets (-DHLOREF_FUZZ=ON) cannot be built" \
    clang-19 libclang-rt-19-dev
fi

if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda (GPU parts will build)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda/bin/nvcc (GPU parts will be skipped)"
fi

# The virtual environment: the versions tools/backends/xla_jax.py was tested
# with (jax 0.10.2 needs numpy >= 2; scipy and opt_einsum are jax's own
# dependencies, pinned so that a later release cannot change the result).
# Creating it takes about 30 s with a warm network (136 MB of wheels).
VENV_PINS=(jax==0.10.2 jaxlib==0.10.2 ml_dtypes==0.6.0 numpy==2.4.6
  scipy==1.17.1 opt_einsum==3.4.0)
VENV="$ROOT/.venv"
STAMP="$VENV/hloref-pins.txt"
if [ "${HLOREF_NO_VENV:-0}" != "0" ]; then
  echo "setup: HLOREF_NO_VENV set: no .venv (the XLA:CPU tests will skip)"
elif [ -x "$VENV/bin/python3" ] && [ -f "$STAMP" ] &&
  [ "$(cat "$STAMP")" = "${VENV_PINS[*]}" ]; then
  echo "setup: .venv present (${VENV_PINS[*]})"
else
  # Debian's python3 (PEP 668 managed: no system-wide pip installs) when
  # there is one, else the python3 on PATH.
  PY=python3
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; fi
  echo "setup: creating .venv with ${VENV_PINS[*]}"
  rm -rf "$VENV"
  if "$PY" -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --disable-pip-version-check \
      "${VENV_PINS[@]}" &&
    "$VENV/bin/python3" -c 'import jax, jaxlib, ml_dtypes, numpy'; then
    echo "${VENV_PINS[*]}" >"$STAMP"
  else
    # Optional: without it the XLA:CPU tests skip, the rest is unaffected.
    echo "setup: WARNING: could not create .venv (no network?): the XLA:CPU" \
      "differential tests will skip" >&2
    rm -rf "$VENV"
  fi
fi
