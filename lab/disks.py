"""A data filesystem per broker host: a sparse ext4 image, loop-mounted on the controller and bound
into the host at /var/lib/kafka, so a fault can fill one broker's disk, turn it read-only or take it away.

It is mounted with errors=remount-ro, as production data disks are: after an error ext4 refuses every
write (what a failing disk looks like to Kafka). A filesystem in that state, or shut down, is only
writable again after it is unmounted and checked, which needs the host off (its bind mount holds it).
"""

import errno
import fcntl
import os
import pathlib
import struct
import time

from . import config
from .shell import LabError, run


def image(host):
    return config.DISKS / f"{host.name}.img"


def mount_point(host):
    return config.DISKS / host.name


def ensure(host):
    config.DISKS.mkdir(parents=True, exist_ok=True)
    img, mnt = image(host), mount_point(host)
    if not img.exists():
        run("truncate", "-s", config.DATA_DISK_SIZE, str(img))
        run("mkfs.ext4", "-q", "-F", "-L", f"data-{host.name}"[:16], str(img))
    mnt.mkdir(exist_ok=True)
    if not os.path.ismount(mnt):
        # A loop device of its own each time (mount -o loop would reuse one still attached to the image,
        # and with it a filesystem that failed before; see repair).
        device = run("losetup", "--find", "--show", str(img)).stdout.strip()
        run("mount", "-o", "errors=remount-ro", device, str(mnt))
    return mnt


def _device_name(host):
    return pathlib.Path(run("findmnt", "-n", "-o", "SOURCE", str(mount_point(host))).stdout.strip()).name


def make_read_only(host):
    """Raise an ext4 error on the host's data filesystem: the kernel turns it read-only at once."""
    pathlib.Path(f"/sys/fs/ext4/{_device_name(host)}/trigger_fs_error").write_text("lab fault: read-only\n")


# EXT4_IOC_SHUTDOWN (_IOR('X', 125, __u32)) with EXT4_GOING_FLAGS_NOLOGFLUSH: every later read or write
# of the filesystem fails with EIO, as when a disk drops off the bus.
_EXT4_IOC_SHUTDOWN = 0x8004587D
_NOLOGFLUSH = 2


def take_away(host):
    """Shut the host's data filesystem down: every read and write fails from now on."""
    fd = os.open(mount_point(host), os.O_RDONLY)
    try:
        fcntl.ioctl(fd, _EXT4_IOC_SHUTDOWN, struct.pack("I", _NOLOGFLUSH))
    finally:
        os.close(fd)


def failed(host):
    """True when the host's data filesystem is read-only after an error, or shut down."""
    mnt = mount_point(host)
    if not os.path.ismount(mnt):
        return False
    options = run("findmnt", "-n", "-o", "OPTIONS", str(mnt)).stdout.strip().split(",")
    if "ro" in options or "emergency_ro" in options:
        return True
    try:
        os.listdir(mnt)
    except OSError as exc:
        return exc.errno == errno.EIO
    return False


def repair(host):
    """Unmount, check and remount the host's data filesystem (the host must be off): what an operator
    does after a disk error. Kafka then finds its data as the last successful write left it."""
    mnt = mount_point(host)
    name = _device_name(host) if os.path.ismount(mnt) else None
    while os.path.ismount(mnt):
        run("umount", str(mnt))
    # The failed filesystem usually goes away a moment after the host's last process; sometimes the
    # kernel keeps it (its ext4 sysfs entry stays) until the lab goes down. It never writes again after
    # the error, so the image is checked and mounted through a new loop device either way.
    deadline = time.monotonic() + 20
    while name and pathlib.Path(f"/sys/fs/ext4/{name}").exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    if name:
        run("losetup", "-d", f"/dev/{name}", check=False)
    fsck = run("e2fsck", "-f", "-y", str(image(host)), check=False)
    if fsck.returncode not in (0, 1, 2):  # 1, 2: errors corrected
        raise LabError(f"e2fsck could not repair {image(host)} ({fsck.returncode}):\n{fsck.stdout}")
    return ensure(host)


def teardown():
    if not config.DISKS.exists():
        return
    for mnt in sorted(p for p in config.DISKS.iterdir() if p.is_dir()):
        while os.path.ismount(mnt):
            run("umount", str(mnt))
    for img in config.DISKS.glob("*.img"):
        for line in run("losetup", "-j", str(img)).stdout.splitlines():
            run("losetup", "-d", line.split(":")[0], check=False)
