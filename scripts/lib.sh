# Shared helpers for scripts/*: sourced, not run.
set -euo pipefail

blobbench_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

# Runs a command as root: directly when root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs the Debian packages that are missing, and only those (apt-get update once, when needed).
ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

BUILD_PACKAGES=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-charts-dev qt6-svg-dev libgl1-mesa-dev
                libpq-dev firebird-dev libfbclient2 libsqlite3-dev zlib1g-dev libzstd-dev
                libgtest-dev libbenchmark-dev)
