#!/usr/bin/env bash
# Installs the Debian packages the controller needs for the lab and the tools, only those missing.
# Each line: a command that must exist, then the package that provides it.
set -euo pipefail
needed=(
  "systemd-nspawn systemd-container"
  "debootstrap debootstrap"
  "ip iproute2"
  "iptables iptables"
  "ssh openssh-client"
  "mkfs.ext4 e2fsprogs"
  "losetup mount"
  "javac openjdk-17-jdk-headless"
  "mvn maven"
  "openssl openssl"
  "promtool prometheus"
  "amtool prometheus-alertmanager"
)
missing=()
for pair in "${needed[@]}"; do
  read -r cmd pkg <<<"$pair"
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
