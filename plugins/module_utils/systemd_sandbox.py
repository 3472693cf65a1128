"""The sandbox every service unit of the kit runs in (the kafka_broker, kafka_controller and zookeeper roles' units):
systemd's own confinement, so that a broker, controller or ZooKeeper member that is taken over can write only its own
data and logs, gains no privilege and reaches no other part of the host. `systemd-analyze security <unit>` scores it.

Left out on purpose: MemoryDenyWriteExecute (the JVM's JIT writes the code it runs), PrivateNetwork and IPAddressDeny
(the service is a network server), PrivateUsers (the lab's and many hosts' containers cannot map users)."""

SANDBOX = (
    "NoNewPrivileges=true",
    "ProtectSystem=strict",
    "ProtectHome=true",
    "PrivateTmp=true",
    "PrivateDevices=true",
    "ProtectKernelTunables=true",
    "ProtectKernelModules=true",
    "ProtectKernelLogs=true",
    "ProtectControlGroups=true",
    "ProtectClock=true",
    "ProtectHostname=true",
    "ProtectProc=invisible",
    "RestrictNamespaces=true",
    "RestrictRealtime=true",
    "RestrictSUIDSGID=true",
    "RemoveIPC=true",
    "LockPersonality=true",
    "CapabilityBoundingSet=",
    "AmbientCapabilities=",
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "SystemCallErrorNumber=EPERM",
    "UMask=0027",
)


def unit_lines(read_write_paths):
    """The [Service] lines of the sandbox, the service's own data and log dirs writable (ReadWritePaths)."""
    paths = [str(p) for p in read_write_paths if p]
    if not paths:
        raise ValueError("a service that may write nowhere cannot run: give its data and log dirs")
    return [*SANDBOX, "ReadWritePaths=" + " ".join(paths)]
