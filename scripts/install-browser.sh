#!/usr/bin/env bash
# Installs Debian's chromium (Playwright cannot download its own browser here) and CJK fonts
# so that screenshots show Chinese text. Idempotent: does nothing when both are present.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing ${need[*]} with apt-get" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
