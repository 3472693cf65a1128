"""A refusal as every plan of the kit returns it (kafka_recovery, kafka_secure_conversion, kafka_ca_rotation):
{"rule": the rule's name, "message": the cause, what it concerns, and what to do}. The playbooks show the
messages and stop."""


def refusal(rule, message):
    return {"rule": rule, "message": message}
