#!/usr/bin/env bash
# System packages some tests use when present (they skip with a reason otherwise): a headless
# Chromium for the report test, SLURM and munge for the one-node cluster of tests/test_slurm.py.
# Debian/Ubuntu, as root. Idempotent. No daemon is started here (the test starts its own).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
    echo "system-packages.sh: run as root (sudo)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
need=()
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
    need+=(chromium)
fi
for tool in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
    command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "system-packages.sh: installing ${need[*]}"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
