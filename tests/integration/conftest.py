"""Integration tests run from the controller against the lab cluster that site.yml deployed."""

import json
import time
import uuid

import pytest
import yaml
from confluent_kafka.admin import AdminClient, NewTopic

from lab import ansible, cluster_settings, config
from lab.cluster_settings import kafka_config, kazoo_client
from lab.machines import run_on
from lab.traffic import delete_topic

# The modules playbooks give the connection role's settings to (meta/runtime.yml, group kafka).
KAFKA_MODULES = set(yaml.safe_load((config.REPO / "meta" / "runtime.yml").read_text())["action_groups"]["kafka"])


def _group(name):
    return [h for h in config.load_hosts() if name in h.groups]


@pytest.fixture(autouse=True)
def _zookeeper_only(request):
    """Tests marked zookeeper need the lab's ensemble: on a KRaft lab (make test-kraft) they are skipped, and
    reported as skipped."""
    if request.node.get_closest_marker("zookeeper") and cluster_settings.load()["metadata_mode"] == "kraft":
        pytest.skip("needs ZooKeeper: the lab runs a KRaft cluster")


@pytest.fixture(scope="session")
def controllers():
    return _group("kafka_controller")


@pytest.fixture(scope="session")
def brokers():
    return _group("kafka_broker")


@pytest.fixture(scope="session")
def zookeepers():
    return _group("zookeeper")


@pytest.fixture(scope="session")
def settings():
    """What the connection role derives from the inventory (playbooks/client_settings.yml)."""
    return cluster_settings.load()


@pytest.fixture(scope="session")
def bootstrap_servers(settings):
    return settings["bootstrap_servers"]


@pytest.fixture(scope="session")
def zookeeper_connect(settings):
    return settings["zookeeper_connect"]


@pytest.fixture(scope="session")
def run_module():
    """Run one of our modules (kafkaops.toolkit.<name>) on the controller (or on a lab host: host=) the way a playbook
    does, and return its result."""
    def run(name, check=False, host="localhost", **args):
        if name in KAFKA_MODULES:  # as a playbook's module_defaults give them: the lab's connection, security included
            args = cluster_settings.load()["connection"] | args
        name = name if "." in name else f"kafkaops.toolkit.{name}"
        # Ad-hoc output is "HOST | STATUS => {result as JSON}".
        env = ansible.environment(**ansible.NO_COLOR, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.minimal",
                                  ANSIBLE_CALLBACK_RESULT_FORMAT="json")
        cmd = ["ansible", host, "-m", name] + (["-a", json.dumps(args)] if args else [])
        cmd += ["--check"] if check else []
        proc = ansible.run(cmd, env=env)
        try:
            status, result = proc.stdout.split(" => ", 1)
            result = json.loads(result)
        except (ValueError, json.JSONDecodeError):
            raise AssertionError(f"{name}: no JSON result\n{proc.stdout}\n{proc.stderr}") from None
        result["failed"] = "FAILED" in status  # the status line, not the result, says it failed
        return result
    return run


@pytest.fixture
def topic(settings, bootstrap_servers):
    """A fresh RF=3, 6-partition topic that every broker already knows with a leader per partition
    (brokers learn new topics from the controller one by one)."""
    admin = AdminClient(kafka_config(bootstrap_servers))
    name = f"test-{uuid.uuid4().hex[:8]}"
    admin.create_topics([NewTopic(name, num_partitions=6, replication_factor=3)])[name].result(30)
    per_broker = [AdminClient(kafka_config(endpoint)) for endpoint in settings["brokers"].values()]
    deadline = time.monotonic() + 30
    for broker_admin in per_broker:
        while True:
            partitions = broker_admin.list_topics(name, timeout=10).topics[name].partitions
            if len(partitions) == 6 and all(p.leader >= 0 for p in partitions.values()):
                break
            assert time.monotonic() < deadline, f"topic {name} is not known with leaders after 30s"
            time.sleep(0.5)
    yield name
    delete_topic(bootstrap_servers, name)  # a test may have moved the controller


@pytest.fixture(scope="session")
def run_playbook():
    """Run one of the project's playbooks as an operator would; returns the finished process, with
    .output: what the operator sees, the play output and the errors printed apart, with the callback's
    line wrapping undone."""
    def run(playbook, *args, env=None):
        extra = ansible.NO_COLOR | (env or {})
        proc = ansible.playbook(f"playbooks/{playbook}", *args, env=ansible.environment(**extra))
        print(proc.stdout[-20000:], proc.stderr[-5000:])  # shown by pytest when the test fails
        proc.output = " ".join((proc.stdout + proc.stderr).split())
        return proc
    return run



@pytest.fixture
def playbook_at(tmp_path):
    """Start one of the project's playbooks and return (process, its output file) once the output shows
    `line` (lab.ansible.start_until: the process leads its own process group, for signals to the whole run)."""
    def start(playbook, args, line, timeout=300):
        log = tmp_path / f"{playbook}.log"
        return ansible.start_until(ansible.command(f"playbooks/{playbook}", *args), log, line, timeout), log
    return start


@pytest.fixture
def kill_playbook_at(tmp_path):
    """Kill a playbook with SIGKILL, its whole process group, once its output shows `line` (the controller
    dies: no always section or handler runs); returns its output."""
    def run(playbook, args, line):
        return ansible.killed_at(ansible.command(f"playbooks/{playbook}", *args), tmp_path / f"{playbook}.log", line)
    return run


@pytest.fixture
def zookeeper_leader(run_module, settings):
    """The ZooKeeper leader, made not the last member in inventory order (by restarting it there), so that
    a roll in inventory order would not put it last by chance."""
    def ensemble():
        result = run_module("zookeeper_ensemble_info", members=settings["zookeeper_members"], wait_timeout=120)
        assert not result["failed"], result.get("msg")
        return result
    leader = ensemble()["leader"]
    if leader == list(settings["zookeeper_members"])[-1]:
        run_on(config.host(leader), "systemctl restart zookeeper")
        leader = ensemble()["leader"]
    return leader


@pytest.fixture
def controller_not_last_by_id(run_module, bootstrap_servers, zookeeper_connect):
    """The active controller's id, made not the highest broker id (its /controller znode deleted until
    another broker wins the election), so that a roll in id order would not put it last by chance."""
    def controller():
        info = run_module("kafka_cluster_info", bootstrap_servers=bootstrap_servers,
                          zookeeper_connect=zookeeper_connect)
        assert not info["failed"], info.get("msg")
        return info["controller_id"], max(int(b) for b in info["brokers"])
    current, highest = controller()
    for _ in range(10):
        if current not in (highest, -1):
            return current
        zk = kazoo_client(zookeeper_connect, timeout=10)
        zk.start()
        try:
            zk.delete("/controller")  # Kafka's documented way to move the controller
        finally:
            zk.stop()
        time.sleep(3)
        current, highest = controller()
    raise AssertionError(f"the controller is still broker {current} after 10 elections")
