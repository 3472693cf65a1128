"""Integration tests run from the controller against the lab cluster that site.yml deployed."""

import json
import os
import socket
import subprocess

import pytest

from lab import config

KAFKA_PORT = 9092
ZOOKEEPER_PORT = 2181
ZOOKEEPER_CHROOT = "/kafka"


def _group(name):
    return [h for h in config.load_hosts() if name in h.groups]


@pytest.fixture(scope="session")
def brokers():
    return _group("kafka_broker")


@pytest.fixture(scope="session")
def zookeepers():
    return _group("zookeeper")


@pytest.fixture(scope="session")
def bootstrap_servers(brokers):
    return ",".join(f"{h.address}:{KAFKA_PORT}" for h in brokers)


@pytest.fixture(scope="session")
def zookeeper_connect(zookeepers):
    return ",".join(f"{h.address}:{ZOOKEEPER_PORT}" for h in zookeepers) + ZOOKEEPER_CHROOT


@pytest.fixture(scope="session")
def four_letter_word():
    """Ask a ZooKeeper node a four-letter word; it answers and closes the connection."""
    def ask(address, word, port=ZOOKEEPER_PORT):
        with socket.create_connection((address, port), timeout=5) as sock:
            sock.sendall(word.encode())
            chunks = []
            while chunk := sock.recv(4096):
                chunks.append(chunk)
        return b"".join(chunks).decode()
    return ask


@pytest.fixture(scope="session")
def run_module():
    """Run one of our modules on the controller the way a playbook does, and return its result."""
    def run(name, check=False, **args):
        # Ad-hoc output is "localhost | STATUS => {result as JSON}".
        env = dict(os.environ, ANSIBLE_CONFIG=str(config.REPO / "ansible.cfg"),
                   ANSIBLE_STDOUT_CALLBACK="ansible.builtin.minimal", ANSIBLE_CALLBACK_RESULT_FORMAT="json",
                   ANSIBLE_FORCE_COLOR="0", ANSIBLE_NOCOLOR="1")
        cmd = ["ansible", "localhost", "-m", name, "-a", json.dumps(args)] + (["--check"] if check else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=config.REPO, env=env)
        try:
            status, result = proc.stdout.split(" => ", 1)
            result = json.loads(result)
        except (ValueError, json.JSONDecodeError):
            raise AssertionError(f"{name}: no JSON result\n{proc.stdout}\n{proc.stderr}") from None
        result["failed"] = "FAILED" in status  # the status line, not the result, says it failed
        return result
    return run
