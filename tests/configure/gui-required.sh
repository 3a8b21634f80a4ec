#!/usr/bin/env bash
# The workbench is required unless asked off: configuring the source tree as a machine without
# Qt6OpenGL (what qt6-base-dev only recommends) or without QtKeychain sees it must stop with one
# message naming the missing part and its Debian packages; -DBLOBBENCH_BUILD_GUI=OFF still configures.
# Usage: gui-required.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=$1 work=$2
rm -rf "$work"
fail() { echo "gui-required: $*" >&2; exit 1; }
configure() {
  local dir=$work/$1; shift
  cmake -S "$src" -B "$dir" -G Ninja -DBLOBBENCH_BUILD_TESTS=OFF -DBLOBBENCH_BUILD_BENCH=OFF "$@" >"$dir.log" 2>&1
}
expect_refused() {
  local name=$1 want=$2; shift 2
  configure "$name" "$@" && fail "$name: configure succeeded without the part ($*)"
  tr '\n' ' ' <"$work/$name.log" | tr -s ' ' | grep -qF "$want" || { cat "$work/$name.log" >&2; fail "$name: no line naming '$want'"; }
  echo "gui-required: $name refused: $want"
}
mkdir -p "$work"
expect_refused no-opengl "Qt6Charts (Qt6Charts could not be found because dependency Qt6OpenGL could not be found): install the Debian packages qt6-charts-dev libqt6opengl6-dev" \
  -DCMAKE_DISABLE_FIND_PACKAGE_Qt6OpenGL=ON
expect_refused no-keychain "Qt6Keychain: install the Debian package qtkeychain-qt6-dev" -DCMAKE_DISABLE_FIND_PACKAGE_Qt6Keychain=ON
expect_refused no-svg "Qt6Svg" -DCMAKE_DISABLE_FIND_PACKAGE_Qt6Svg=ON
configure gui-off -DBLOBBENCH_BUILD_GUI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Qt6OpenGL=ON \
  || { cat "$work/gui-off.log" >&2; fail "gui-off: -DBLOBBENCH_BUILD_GUI=OFF did not configure"; }
echo "gui-required: -DBLOBBENCH_BUILD_GUI=OFF configures without the GUI"
rm -rf "$work"
