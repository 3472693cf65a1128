"""The audit log of the brokers and KRaft controllers (kafka-authorizer.log): Kafka's authorizer logger at DEBUG logs
every authorization, allowed or denied; log4j (3.x) or log4j2 (4.x) filters on its appender keep every denial and
every allowed operation that changes the cluster (create, delete, alter, alter configs: a super user's changes among
them), and drop the allowed reads, writes and describes that would fill it.

The authorizers' lines (Kafka 3.9): StandardAuthorizer (KRaft) "Principal = User:x is Allowed operation = CREATE from
host = ... on resource = ... for request = ... with resourceRefCount = 1 based on rule SuperUser", AclAuthorizer
(ZooKeeper) "Principal = User:x is Allowed Operation = Create from host = ..." (seen on the lab): the matches leave
out the first letter and take both spellings of each operation.
"""

# ALTER / Alter match ALTER_CONFIGS / AlterConfigs too
KEPT = ("is Denied", "peration = CREATE", "peration = DELETE", "peration = ALTER",
        "peration = Create", "peration = Delete", "peration = Alter")


def log4j2_filter(on_mismatch):
    """The settings of the log4j2 RegexFilter (Kafka 4.x) on the authorizer's appender: a full match of the message
    that accepts a line holding one of KEPT and does on_mismatch (DENY) with the rest."""
    return {"regex": ".*(" + "|".join(KEPT) + ").*", "onMatch": "ACCEPT", "onMismatch": on_mismatch}


def log4j_lines(appender):
    """The log4j 1.x (reload4j) properties that filter appender: accept a line holding one of KEPT, deny the rest."""
    lines = []
    for number, text in enumerate(KEPT, start=1):
        prefix = f"log4j.appender.{appender}.filter.{number}"
        lines += [f"{prefix}=org.apache.log4j.varia.StringMatchFilter", f"{prefix}.StringToMatch={text}",
                  f"{prefix}.AcceptOnMatch=true"]
    return lines + [f"log4j.appender.{appender}.filter.{len(KEPT) + 1}=org.apache.log4j.varia.DenyAllFilter"]
