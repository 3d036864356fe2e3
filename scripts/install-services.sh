#!/usr/bin/env bash
# Installs Debian's postgresql (the tests start a throw-away cluster of their own from its
# binaries, /usr/lib/postgresql/*/bin) and nginx (the front of scripts/stack.sh and its
# integration test). Idempotent: does nothing when both are present. Neither service is
# enabled or started here: the tests and scripts/stack.sh run private instances.
set -euo pipefail
need=()
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
[ -x /usr/sbin/nginx ] || need+=(nginx)
# Serves the precompressed .br files next to the .gz ones (brotli_static).
compgen -G "/usr/share/nginx/modules-available/mod-http-brotli-static.conf" >/dev/null ||
    need+=(libnginx-mod-http-brotli-static)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing ${need[*]} with apt-get" >&2
$SUDO apt-get update -qq
# policy-rc.d: do not start the packages' own system services (101 = action forbidden).
POLICY=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
    $SUDO chmod +x "$POLICY"
    trap '$SUDO rm -f "$POLICY"' EXIT
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
