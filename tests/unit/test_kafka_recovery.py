"""The refusals and plans of replace_broker.yml and rebuild_broker.yml, on hand-written cluster states."""

from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_recovery as kr


def _broker(host, port=9092):
    return {"host": host, "port": port, "endpoints": [f"PLAINTEXT://{host}:{port}"]}


def _state(partitions, brokers=None, unclean=()):
    brokers = brokers if brokers is not None else {1: _broker("kafka1.lab"), 3: _broker("kafka3.lab")}
    return {"cluster_id": "c1", "controller_id": 1, "brokers": brokers, "min_insync": {"t": 2},
            "unclean_election": list(unclean),
            "partitions": [{"topic": "t", "partition": n, "leader": lead, "replicas": reps, "isr": isr}
                           for n, (lead, reps, isr) in enumerate(partitions)]}


HEALTHY_WITHOUT_2 = [(1, [1, 2, 3], [1, 3]), (3, [3, 1, 2], [3, 1])]


def _replace(**overrides):
    request = dict(failed_id=2, failed_host="kafka2", replacement_host="kafka4",
                   replacement_endpoint=("kafka4.lab", 9092), fence_failed_host=False, failed_host_reachable=None,
                   accept_offline_partitions=False, replacement_active=False, replacement_identity=[],
                   format_refusals=[], tools_problem=None)
    return dict(request, **overrides)


def _rules(decision):
    return [r["rule"] for r in decision["refusals"]]


def test_replace_goes_ahead_on_a_healthy_cluster():
    decision = kr.replace_decision(_state(HEALTHY_WITHOUT_2), _replace())
    assert decision["refusals"] == [] and not decision["rerun"] and not decision["fence"]
    assert decision["plan"][0].startswith("replace broker 2 (kafka2: not registered) with kafka4 advertising")


def test_replace_refuses_unclean_election_naming_where():
    decision = kr.replace_decision(_state(HEALTHY_WITHOUT_2, unclean=["topic t"]), _replace())
    assert _rules(decision) == ["unclean-election"]
    assert "topic t" in decision["refusals"][0]["message"]


def test_a_registered_failed_broker_is_refused_unless_fenced():
    brokers = {1: _broker("kafka1.lab"), 2: _broker("kafka2.lab"), 3: _broker("kafka3.lab")}
    state = _state([(1, [1, 2, 3], [1, 2, 3])], brokers)
    refused = kr.replace_decision(state, _replace())
    assert _rules(refused) == ["replace-registered"]
    assert "kafka2.lab:9092" in refused["refusals"][0]["message"]
    assert "fence_failed_host=true" in refused["refusals"][0]["message"]
    fenced = kr.replace_decision(state, _replace(fence_failed_host=True, failed_host_reachable=True))
    assert fenced["refusals"] == [] and fenced["fence"]
    unreachable = kr.replace_decision(state, _replace(fence_failed_host=True, failed_host_reachable=False))
    assert _rules(unreachable) == ["fence-unreachable"]


def test_the_replacement_registered_at_its_advertised_name_is_a_rerun_not_a_live_failed_broker():
    # The lab's bug: ansible_host (an address) was compared with the registered host (a name).
    brokers = {1: _broker("kafka1.lab"), 2: _broker("kafka4.lab"), 3: _broker("kafka3.lab")}
    state = _state([(1, [1, 2, 3], [1, 3]), (2, [2, 3, 1], [2])], brokers)
    decision = kr.replace_decision(state, _replace(replacement_active=True))
    assert decision["refusals"] == [] and decision["rerun"] and not decision["fence"]
    # The same id at the replacement's name but another port is not the replacement.
    other_port = kr.replace_decision(state, _replace(replacement_endpoint=("kafka4.lab", 9093)))
    assert "replace-registered" in _rules(other_port)


def test_endpoint_matching_ignores_case_and_reads_every_listener():
    broker = {"host": "x", "port": 1, "endpoints": ["SASL_SSL://Kafka4.Lab:9094", "INTERNAL://kafka4.lab:9095"]}
    assert kr.advertises(broker, "kafka4.lab", 9094) and kr.advertises(broker, "KAFKA4.lab", "9095")
    assert not kr.advertises(broker, "kafka4.lab", 9092)
    assert kr.advertises({"host": "h", "port": 9092, "endpoints": []}, "h", 9092)


def test_only_in_sync_copy_is_refused_unless_accepted():
    state = _state([(1, [1, 2, 3], [1, 3]), (-1, [2, 3, 1], [2])])
    decision = kr.replace_decision(state, _replace())
    assert _rules(decision) == ["replace-only-in-sync"]
    assert "t[1]" in decision["refusals"][0]["message"] and "accept_offline_partitions" in \
        decision["refusals"][0]["message"]
    accepted = kr.replace_decision(state, _replace(accept_offline_partitions=True))
    assert accepted["refusals"] == [] and accepted["plan"][2] == "accepted offline partitions: t[1]"


def test_a_replacement_that_runs_a_broker_or_holds_other_data_is_refused():
    brokers = {1: _broker("kafka1.lab"), 3: _broker("kafka3.lab"), 7: _broker("kafka4.lab")}
    running = kr.replace_decision(_state(HEALTHY_WITHOUT_2, brokers), _replace(replacement_active=True))
    assert _rules(running) == ["replacement-runs-broker"]
    assert "registered as broker 7" in running["refusals"][0]["message"]
    data = kr.replace_decision(_state(HEALTHY_WITHOUT_2), _replace(
        replacement_identity=["/var/lib/kafka/data holds the data of broker.id 7, not 2"]))
    assert _rules(data) == ["replacement-other-data"]


def test_replace_without_kafka_tools_is_refused_before_anything_changes():
    decision = kr.replace_decision(_state(HEALTHY_WITHOUT_2), _replace(tools_problem="kafka_tools_home ('') must"))
    assert _rules(decision) == ["tools-before-change"]


def test_a_replacement_another_rule_refuses_is_refused():
    newer = {"rule": "version-newer-format", "message": "/var/lib/kafka/data was formatted at metadata.version ..."}
    assert kr.replace_decision(_state(HEALTHY_WITHOUT_2), _replace(format_refusals=[newer]))["refusals"] == [newer]


def _rebuild(**overrides):
    return dict(dict(broker_id=3, host="kafka3", identity=[], keep_old_data=False, free_bytes=None,
                     bytes_to_copy=None), **overrides)


FULL = {1: _broker("a"), 2: _broker("b"), 3: _broker("c")}


def test_rebuild_goes_ahead_when_the_others_are_in_sync():
    state = _state([(1, [1, 2, 3], [1, 2, 3]), (3, [3, 1, 2], [3, 1, 2])], FULL)
    assert kr.rebuild_decision(state, _rebuild())["refusals"] == []


def test_rebuild_refuses_below_min_isr_and_only_copy():
    state = _state([(3, [3, 1, 2], [3, 1]), (3, [3, 1, 2], [3])], FULL)
    decision = kr.rebuild_decision(state, _rebuild())
    assert _rules(decision) == ["rebuild-only-in-sync", "rebuild-below-min-isr"]
    assert "t[1]" in decision["refusals"][0]["message"] and "t[0-1]" in decision["refusals"][1]["message"]


def test_rebuild_refuses_foreign_or_unreadable_log_dirs():
    state = _state([(1, [1, 2, 3], [1, 2, 3])], FULL)
    decision = kr.rebuild_decision(state, _rebuild(identity=["/d cannot be read: Input/output error"]))
    assert _rules(decision) == ["rebuild-other-broker"]
    assert "Input/output error" in decision["refusals"][0]["message"]


def test_rebuild_keeping_old_data_needs_room_for_the_copy():
    state = _state([(1, [1, 2, 3], [1, 2, 3])], FULL)
    tight = kr.rebuild_decision(state, _rebuild(keep_old_data=True, free_bytes=100, bytes_to_copy=101))
    assert _rules(tight) == ["rebuild-no-room-for-old-data"]
    assert kr.rebuild_decision(state, _rebuild(keep_old_data=True, free_bytes=101, bytes_to_copy=101))[
        "refusals"] == []
    assert kr.rebuild_decision(state, _rebuild(keep_old_data=False, free_bytes=1, bytes_to_copy=101))[
        "refusals"] == []
