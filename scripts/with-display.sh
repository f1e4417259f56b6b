#!/usr/bin/env bash
# Runs a command with an X display: the caller's DISPLAY when set, else a
# private Xvfb started here and stopped afterwards. GL tests use it (GLX);
# EGL tests run headless with DISPLAY unset on their own.
set -euo pipefail
if [ -n "${DISPLAY:-}" ] || ! command -v Xvfb >/dev/null; then
  exec "$@"
fi
for n in $(seq 90 140); do
  [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break
done
# -noreset: Xvfb otherwise resets when its last client leaves, and a
# client connecting during the reset is refused. A second screen: the
# corpus configs whose pipes name device 1 open their windows there.
setsid Xvfb ":$n" -screen 0 1920x1080x24 -screen 1 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  [ -e "/tmp/.X11-unix/X$n" ] && break
  sleep 0.05
done
DISPLAY=":$n" "$@"
