#!/usr/bin/env bash
# Prints the path of a Go toolchain new enough for goeq (go.mod's version),
# installing one from the Go module proxy when the machine has none.
set -euo pipefail
want_minor=$(sed -n 's/^go 1\.\([0-9]*\).*/\1/p' "$(dirname "$0")/../go.mod")
install_version=1.26.8
dir=/usr/local/goeq-go
ok() { # go binary -> true when new enough
  local v; v=$("$1" env GOVERSION 2>/dev/null) || return 1
  v=${v#go}; local minor=${v#1.}; minor=${minor%%.*}
  [ "${minor:-0}" -ge "$want_minor" ] 2>/dev/null
}
for g in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go "$dir/go/bin/go"; do
  if [ -n "$g" ] && [ -x "$g" ] && ok "$g"; then echo "$g"; exit 0; fi
done
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
echo "ensure-go: installing Go $install_version into $dir" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL -o "$tmp/go.zip" "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go${install_version}.linux-${arch}.zip"
unzip -q "$tmp/go.zip" -d "$tmp/x"
rm -rf "$dir" && mkdir -p "$dir"
mv "$tmp/x/golang.org/toolchain@v0.0.1-go${install_version}.linux-${arch}" "$dir/go"
chmod +x "$dir/go/bin/"* "$dir/go/pkg/tool/"*/* 2>/dev/null || true
echo "$dir/go/bin/go"
