"""ZooKeeper hosts as site.yml leaves them."""

testinfra_hosts = ["ansible://zookeeper"]


def test_service_is_running_and_enabled(host):
    service = host.service("zookeeper")
    assert service.is_running and service.is_enabled


def test_only_the_tls_client_port_listens_and_the_admin_server_does_not(host):
    assert host.socket("tcp://0.0.0.0:2182").is_listening  # secureClientPort
    assert not host.socket("tcp://0.0.0.0:2181").is_listening  # no plaintext client port
    assert not host.socket("tcp://0.0.0.0:8080").is_listening


def test_myid_is_the_inventory_id(host):
    myid = host.file("/var/lib/zookeeper/myid")
    assert myid.content_string.strip() == str(host.ansible.get_variables()["zookeeper_id"])
    assert (myid.user, myid.group, myid.mode) == ("root", "zookeeper", 0o640)  # the member reads it, cannot change it


def test_zoo_cfg_lists_the_ensemble_and_restricts_four_letter_words(host):
    cfg = host.file("/etc/zookeeper/zoo.cfg")
    assert (cfg.user, cfg.group, cfg.mode) == ("root", "zookeeper", 0o640)
    text = cfg.content_string
    assert "4lw.commands.whitelist=srvr,ruok,mntr,isro" in text
    assert "admin.enableServer=false" in text
    assert "autopurge.purgeInterval=24" in text
    for n, address in ((1, "10.213.7.11"), (2, "10.213.7.12"), (3, "10.213.7.13")):
        assert f"server.{n}={address}:2888:3888" in text


def test_a_word_outside_the_whitelist_is_refused(host):
    # Over TLS with the member's own certificate (the port wants one from the cluster's CA).
    answer = host.run(
        "python3 -c \"import socket, ssl; c = ssl.create_default_context(cafile='/etc/zookeeper/tls/truststore.pem'); "
        "c.check_hostname = False; c.load_cert_chain('/etc/zookeeper/tls/keystore.pem'); "
        "s = c.wrap_socket(socket.create_connection(('127.0.0.1', 2182))); "
        "s.sendall(b'stat'); print(s.recv(4096).decode())\"").stdout
    assert "is not executed because it is not in the whitelist" in answer


def test_root_owns_the_key_and_logins_and_the_member_reads_them_through_its_group(host):
    for path in ("/etc/zookeeper/tls/keystore.pem", "/etc/zookeeper/jaas.conf", "/etc/zookeeper/zoo.cfg"):
        found = host.file(path)
        assert (found.user, found.group, found.mode) == ("root", "zookeeper", 0o640), path


def test_data_dir_belongs_to_the_service_user(host):
    data = host.file("/var/lib/zookeeper")
    assert (data.user, data.mode) == ("zookeeper", 0o750)


def test_jvm_runs_as_zookeeper_with_ipv4_stack(host):
    java = host.process.get(comm="java")
    assert java.user == "zookeeper"
    assert "-Djava.net.preferIPv4Stack=true" in java.args
    assert "org.apache.zookeeper.server.quorum.QuorumPeerMain" in java.args
