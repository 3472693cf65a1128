"""adopt_cluster.yml on a cluster the kit did not deploy (make test-adopt: `python -m lab legacy-deploy --version V`
on a fresh lab first, KAFKAOPS_LAB_KAFKA_VERSION=V): the inventory layer it writes describes what runs, --check writes
nothing, a rerun changes nothing, and every refusal made here writes nothing and changes nothing on the hosts. Last,
site.yml --check --diff with the layer shows the takeover (a change planned on every host) and changes nothing; then
site.yml takes the cluster over under an acks=all canary on PLAINTEXT: the run retires the old units and starts the
kit's on the same data, a rerun changes nothing, the Spark validator finds every acknowledged record."""

import json
import re
import time
import uuid

import pytest
import yaml
from lab_hosts import ssh_run

from canary import Canary, client_config, ensure_topic
from lab import ansible, config, legacy

BROKERS = [h for h in config.load_hosts() if "kafka_broker" in h.groups]
MEMBERS = [h for h in config.load_hosts() if "zookeeper" in h.groups]


def _files(layer):
    return {str(p.relative_to(layer)): p.read_text() for p in sorted(layer.rglob("*")) if p.is_file()}


def _adopt(run_playbook, layer, *args):
    return run_playbook("adopt_cluster.yml", "-e", f"adopt_inventory_dir={layer}", *args)


@pytest.fixture(scope="module")
def before():
    return legacy.hosts_state(config.KAFKA_VERSION)


def test_a_forgotten_layer_dir_fails_reading_nothing(run_playbook, before):
    run = run_playbook("adopt_cluster.yml")
    assert run.returncode != 0 and "Run with -e adopt_inventory_dir=" in run.output, run.output[-2000:]
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def test_check_mode_shows_the_layer_and_writes_nothing(run_playbook, tmp_path, before):
    run = _adopt(run_playbook, tmp_path / "layer", "--check", "--diff")
    assert run.returncode == 0, run.output[-3000:]
    assert "kafka1: broker 1 (apache-kafka.service)" in run.output and "Would write" in run.output
    assert 'kafka_version: "' + config.KAFKA_VERSION + '"' in run.output  # the diff shows the files
    assert not (tmp_path / "layer").exists() and legacy.hosts_state(config.KAFKA_VERSION) == before


def test_the_layer_describes_the_running_cluster_and_a_rerun_changes_nothing(run_playbook, tmp_path, before):
    layer = tmp_path / "layer"
    run = _adopt(run_playbook, layer)
    assert run.returncode == 0, run.output[-3000:]
    files = _files(layer)
    cluster = yaml.safe_load(files["group_vars/all/adopted-cluster.yml"])
    assert (cluster["kafka_version"], cluster["kafka_metadata_mode"], cluster["kafka_plaintext_port"],
            cluster["zookeeper_plaintext_client_port"], cluster["kafka_zookeeper_chroot"]) == (
        config.KAFKA_VERSION, "zookeeper", legacy.LISTENER_PORT, legacy.CLIENT_PORT, "")
    assert cluster["kafka_install_dir"] == "/opt/kafkaops"  # the kit's releases beside the running one
    for broker_id, host in enumerate(BROKERS, 1):
        own = yaml.safe_load(files[f"host_vars/{host.name}.yml"])
        assert (own["kafka_broker_id"], own["kafka_log_dirs"], own["kafka_adopted_unit"]) == (
            broker_id, [legacy.KAFKA_DATA], legacy.KAFKA_UNIT)
    for myid, host in enumerate(MEMBERS, 1):
        own = yaml.safe_load(files[f"host_vars/{host.name}.yml"])
        assert (own["zookeeper_id"], own["zookeeper_data_dir"], own["zookeeper_adopted_unit"]) == (
            myid, legacy.ZOOKEEPER_DATA, legacy.ZOOKEEPER_UNIT)
    opened = yaml.safe_load(files["group_vars/all/open-until-secured.yml"])
    assert opened["kafka_plaintext_listener"] is True and "kafka_plaintext_listener" in \
        opened["kafka_security_exposures_accepted"]
    assert "num.partitions=1" in files[f"host_vars/{BROKERS[0].name}.yml"]  # not carried: listed for review
    # the topic policy the takeover changes, against Kafka's default where the legacy config sets none
    assert "#   auto.create.topics.enable: true -> false\n#   num.partitions: 1 -> 3\n" in \
        files["group_vars/all/adopted-cluster.yml"]
    assert "The takeover changes the topic policy the brokers run: auto.create.topics.enable true -> false" in \
        run.output
    # an inventory source of its own, read after the inventory: its values are the hosts'
    shown = ansible.run(["ansible-inventory", "-i", str(config.INVENTORY), "-i", str(layer), "--host", BROKERS[1].name])
    assert shown.returncode == 0, shown.stderr
    seen = json.loads(shown.stdout)
    assert (seen["kafka_broker_id"], seen["kafka_adopted_unit"], seen["kafka_plaintext_listener"]) == (
        2, legacy.KAFKA_UNIT, True)
    rerun = _adopt(run_playbook, layer)
    assert rerun.returncode == 0 and _files(layer) == files, rerun.output[-3000:]
    assert "localhost : ok=" in rerun.output and "changed=0" in rerun.output.split("localhost :")[1][:80]
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def _refused(run_playbook, layer, rule, *args):
    written = _files(layer) if layer.exists() else None
    run = _adopt(run_playbook, layer, *args)
    assert run.returncode != 0, run.output[-3000:]
    assert "Refusing to adopt the cluster: [" in run.output and f"[{rule}]" in run.output \
        and "Nothing was written." in run.output, run.output[-3000:]
    assert (_files(layer) if layer.exists() else None) == written
    return run


def test_an_id_the_inventory_gives_otherwise_is_refused(run_playbook, tmp_path, before):
    run = _refused(run_playbook, tmp_path / "layer", "adopt-id-disagrees", "-e", "kafka_broker_id=7")
    assert "kafka_broker_id=7, and it runs id 1" in run.output
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def test_a_port_the_kits_listeners_need_is_refused(run_playbook, tmp_path, before):
    run = _refused(run_playbook, tmp_path / "layer", "adopt-port-clash", "-e", f"kafka_port={legacy.LISTENER_PORT}")
    assert "set kafka_port to a free port" in run.output
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def test_a_persons_file_in_the_layer_is_refused_and_kept(run_playbook, tmp_path, before):
    layer = tmp_path / "layer"
    (layer / "group_vars").mkdir(parents=True)
    (layer / "group_vars" / "all.yml").write_text("kafka_heap_size: 4g\n")
    _refused(run_playbook, layer, "adopt-would-overwrite")
    assert (layer / "group_vars" / "all.yml").read_text() == "kafka_heap_size: 4g\n"
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def test_a_broker_that_does_not_run_is_refused(run_playbook, tmp_path):
    host = BROKERS[-1]
    ssh_run(host, f"systemctl stop {legacy.KAFKA_UNIT}")
    try:
        stopped = legacy.hosts_state(config.KAFKA_VERSION)
        run = _refused(run_playbook, tmp_path / "layer", "adopt-not-running")
        assert f"{host.name} of kafka_broker runs no broker" in run.output
        assert legacy.hosts_state(config.KAFKA_VERSION) == stopped
    finally:
        ssh_run(host, f"systemctl start {legacy.KAFKA_UNIT}")
        legacy.wait_registered(MEMBERS[0], len(BROKERS))


def _units(host, *units):
    """{unit: (is-active, is-enabled)} on host."""
    shown = ssh_run(host, " ; ".join(f"echo {u} $(systemctl is-active {u}) $(systemctl is-enabled {u})" for u in units))
    return {unit: (active, enabled) for unit, active, enabled in (line.split() for line in shown.splitlines())}


# A stopped adopted unit is inactive, or failed when it does not count Java's exit on SIGTERM (143) as a success
STOPPED = ("inactive", "failed")


def _changed_hosts(output):
    return [m.group(1) for m in re.finditer(r"(\S+) : ok=\d+ changed=(\d+)", output) if m.group(2) != "0"]


def _layered(run_playbook, layer):
    """The environment of a run with the layer read after the lab's inventory (-i INVENTORY -i LAYER)."""
    assert _adopt(run_playbook, layer).returncode == 0
    return {"ANSIBLE_INVENTORY": f"{config.INVENTORY},{layer}"}


def test_site_check_shows_the_takeover_and_changes_nothing(run_playbook, tmp_path):
    layered = _layered(run_playbook, tmp_path / "layer")
    before = legacy.hosts_state(config.KAFKA_VERSION)  # the refusal test above restarted a legacy broker
    check = run_playbook("site.yml", "--check", "--diff", env=layered)
    assert check.returncode == 0, check.output[-5000:]
    assert set(_changed_hosts(check.output)) >= {h.name for h in BROKERS + MEMBERS}, check.output[-3000:]
    assert "+broker.id=1" in check.output  # the diff shows the server.properties the kit would write
    assert legacy.hosts_state(config.KAFKA_VERSION) == before


def test_site_takes_the_cluster_over_under_a_canary(run_playbook, tmp_path):
    layered = _layered(run_playbook, tmp_path / "layer")

    plaintext = client_config(bootstrap_servers=",".join(f"{h.fqdn}:{legacy.LISTENER_PORT}" for h in BROKERS))
    topic = f"canary-adopt-{uuid.uuid4().hex[:6]}"
    ensure_topic(plaintext, topic, partitions=6, replication_factor=3)
    canary = Canary(plaintext, topic, tmp_path / "ledger", rate=100).start()
    try:
        time.sleep(10)  # data in every partition before the snapshot
        snapshot = run_playbook("snapshot_offsets.yml", "-e", f"snapshot_dir={tmp_path / 'snapshots'}", env=layered)
        assert snapshot.returncode == 0, snapshot.output[-3000:]
        site = run_playbook("site.yml", env=layered)
        assert site.returncode == 0, site.output[-5000:]
    finally:
        assert canary.stop() == 0, "records never reported"
    for hosts, old, unit in ((BROKERS, legacy.KAFKA_UNIT, "kafka"), (MEMBERS, legacy.ZOOKEEPER_UNIT, "zookeeper")):
        for host in hosts:
            units = _units(host, old, unit)
            assert units[old][0] in STOPPED and units[old][1] == "disabled" and units[unit] == ("active", "enabled"), \
                (host.name, units)
    for host in BROKERS:  # the same data, in place, now the service user's
        assert ssh_run(host, f"stat -c %U {legacy.KAFKA_DATA}/meta.properties").strip() == "kafka"
    rerun = run_playbook("site.yml", env=layered)
    assert rerun.returncode == 0 and _changed_hosts(rerun.output) == [], rerun.output[-5000:]

    summary = canary.summary()
    report = tmp_path / "report"
    before_snapshot = max((tmp_path / "snapshots").glob("*/*/cluster.json")).parent
    validated = run_playbook("validate_recovery.yml", "-e", f"before_snapshot={before_snapshot}", "-e",
                             f"ledger={tmp_path / 'ledger'}", "-e", f"snapshot_dir={tmp_path / 'snapshots'}", "-e",
                             f"report_dir={report}", env=layered)
    result = json.loads((report / "result.json").read_text())
    print(f"takeover under the canary: {summary}, lost {result['lost_records_total']}, verdict {result['verdict']}")
    assert summary["acked"] > 0 and summary["failed"] == 0, summary
    assert result["lost_records_total"] == 0 and validated.returncode == 0, validated.output[-3000:]
