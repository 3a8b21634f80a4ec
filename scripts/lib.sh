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
  # Progress goes to stderr: the service scripts' stdout carries only their export lines.
  echo "Installing: ${missing[*]}" >&2
  as_root apt-get update -qq >&2
  # tshark's wireshark-common asks whether non-root users may capture: answer no before it asks.
  if printf '%s\n' "${missing[@]}" | grep -qx -e tshark -e wireshark-common; then
    echo "wireshark-common wireshark-common/install-setuid boolean false" | as_root debconf-set-selections
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Runs a service start script and exports what it prints: only its "export NAME=value" lines are
# evaluated, so whatever a package's install scripts print can never be run as a command.
start_service() {
  local out
  out=$(bash "$(blobbench_root)/scripts/services/$1") || { echo "scripts: $1 failed" >&2; return 1; }
  local exports
  exports=$(printf '%s\n' "$out" | grep -E "^export [A-Z][A-Z0-9_]*=" || true)
  # A service that names nothing would leave its tests without a server: say so here, not later.
  [ -n "$exports" ] || { echo "scripts: $1 printed no export lines" >&2; return 1; }
  eval "$exports"
}

BUILD_PACKAGES=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libgl1-mesa-dev
                libpq-dev firebird-dev libfbclient2 libmariadb-dev libsqlite3-dev zlib1g-dev libzstd-dev
                libgtest-dev libgmock-dev libbenchmark-dev tshark qtkeychain-qt6-dev gnome-keyring)

# What scripts/package-check runs besides the build: cpack's dpkg-shlibdeps, the validators, the
# linter, man -w. Never named before, so it only worked where they had been installed by hand.
PACKAGE_CHECK_PACKAGES=(dpkg-dev desktop-file-utils appstream lintian libxml2-utils man-db)
