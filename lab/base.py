"""The shared base root filesystem every lab host boots from, and the SSH key that reaches it."""

import shutil
import time

from . import config, names
from .shell import run

_STAMP = ".lab-base"
_LAYOUT = 3  # bump when the steps after debootstrap change, to rebuild cached bases
# Units a container does not need; systemd-sysusers failed at random on overlay boots (users exist).
_MASKED_UNITS = ("systemd-sysusers.service", "console-getty.service")


def _wanted_stamp():
    return f"{config.BASE_SUITE} minbase {','.join(config.BASE_PACKAGES)} layout {_LAYOUT}\n"


def ensure_ssh_key():
    if not config.SSH_KEY.exists():
        config.SSH_KEY.parent.mkdir(parents=True, exist_ok=True)
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "kafka-lab", "-f", str(config.SSH_KEY))
    return config.SSH_KEY.with_suffix(".pub").read_text()


def ensure_base():
    """Build the base image with debootstrap once; rebuild only when its package list changes."""
    stamp = config.BASE / _STAMP
    if stamp.exists() and stamp.read_text() == _wanted_stamp():
        return False
    tmp = config.ROOT / "base.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    config.ROOT.mkdir(parents=True, exist_ok=True)
    print(f"building the lab base image in {config.BASE} (debootstrap, about a minute)...", flush=True)
    started = time.monotonic()
    # No mirror argument: debootstrap's default Debian mirror, the only package source there is.
    run("debootstrap", "--variant=minbase", f"--include={','.join(config.BASE_PACKAGES)}",
        config.BASE_SUITE, str(tmp))
    # Each host gets its name from `systemd-nspawn -M` and a machine id of its own.
    (tmp / "etc" / "hostname").unlink(missing_ok=True)
    (tmp / "etc" / "machine-id").write_text("")
    for unit in _MASKED_UNITS:
        (tmp / "etc" / "systemd" / "system" / unit).symlink_to("/dev/null")
    for link in (tmp / "etc" / "systemd" / "system").glob("*.wants/*"):
        if link.name.startswith(config.BASE_UNITS_OFF_PREFIX):
            link.unlink()
    (tmp / _STAMP).write_text(_wanted_stamp())
    shutil.rmtree(config.BASE, ignore_errors=True)
    tmp.rename(config.BASE)
    print(f"base image built in {time.monotonic() - started:.0f}s", flush=True)
    return True


def write_host_files(hosts, public_key):
    """Root's authorized key and /etc/hosts go into the base, before any host boots from it
    (a running overlay does not see files written into its lower or upper dir)."""
    ssh_dir = config.BASE / "root" / ".ssh"
    ssh_dir.mkdir(mode=0o700, exist_ok=True)
    keys = ssh_dir / "authorized_keys"
    keys.write_text(public_key)
    keys.chmod(0o600)
    lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback", *names.host_lines(hosts)]
    (config.BASE / "etc" / "hosts").write_text("\n".join(lines) + "\n")
