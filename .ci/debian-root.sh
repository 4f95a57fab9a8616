#!/usr/bin/env bash
# Run a command, from the checkout's root, inside a Debian 13 ("trixie", Python 3.13) root made by debootstrap:
# the newest-stack leg's interpreter on a machine that has no Python 3.13 of its own. As root.
#   bash .ci/debian-root.sh "PYTHON=python3.13 bash .ci/newest-stack.sh"
# The root is made once in /var/cache/isdp-debian-trixie (about 1.5 minutes, from Debian's mirror) and
# reused; the checkout is bind-mounted at /isdp, so what the command writes lands in the checkout's
# ignored paths as it would outside.
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:?usage: debian-root.sh COMMAND}
root=/var/cache/isdp-debian-trixie
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
if [ ! -x "$root/usr/bin/python3.13" ]; then
    command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
    rm -rf "$root"
    debootstrap --variant=minbase \
        --include=python3,python3-venv,python3-dev,build-essential,git,make,ca-certificates \
        trixie "$root" "$mirror" >/dev/null
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/isdp"
cleanup() { for m in isdp sys dev proc; do umount -l "$root/$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount --bind "$PWD" "$root/isdp"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin CI="${CI:-}" \
    bash -c "git config --global --add safe.directory /isdp && cd /isdp && $command"
