"""A data filesystem per broker host: a sparse ext4 image, loop-mounted on the controller and bound
into the host at /var/lib/kafka, so a fault can fill, freeze or remove one broker's disk."""

import os

from . import config
from .shell import run


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
        run("mount", "-o", "loop", str(img), str(mnt))
    return mnt


def teardown():
    if not config.DISKS.exists():
        return
    for mnt in sorted(p for p in config.DISKS.iterdir() if p.is_dir()):
        while os.path.ismount(mnt):
            run("umount", str(mnt))
    for img in config.DISKS.glob("*.img"):
        for line in run("losetup", "-j", str(img)).stdout.splitlines():
            run("losetup", "-d", line.split(":")[0], check=False)
