"""Reading replication throttle configs back from the lab cluster, for the integration tests."""

from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource

from lab.cluster_settings import kafka_config

_DYNAMIC = {ConfigResource.Type.TOPIC: ConfigSource.DYNAMIC_TOPIC_CONFIG,
            ConfigResource.Type.BROKER: ConfigSource.DYNAMIC_BROKER_CONFIG}


def dynamic_throttles(admin, restype, name):
    """The throttle configs set dynamically on one topic or broker: {config: value}."""
    resource = ConfigResource(restype, str(name))
    entries = admin.describe_configs([resource])[resource].result(30)
    source = _DYNAMIC[restype].value
    return {k: e.value for k, e in entries.items()
            if getattr(e.source, "value", e.source) == source and "throttled" in k}


def throttles_anywhere(bootstrap_servers):
    """Every throttle config left on any topic or live broker: {'topic T' / 'broker B': {config: value}}."""
    admin = AdminClient(kafka_config(bootstrap_servers))
    metadata = admin.list_topics(timeout=30)
    found = {f"topic {t}": dynamic_throttles(admin, ConfigResource.Type.TOPIC, t) for t in metadata.topics}
    found.update({f"broker {b}": dynamic_throttles(admin, ConfigResource.Type.BROKER, b)
                  for b in metadata.brokers})
    return {where: configs for where, configs in found.items() if configs}
