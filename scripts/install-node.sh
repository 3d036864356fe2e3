#!/usr/bin/env bash
# Installs Debian's nodejs for the page's reducer tests (`node --test tests/js/`). The game
# itself needs no Node: its ES modules are served as they are. Idempotent.
set -euo pipefail
command -v node >/dev/null 2>&1 && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing nodejs with apt-get" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs >/dev/null
