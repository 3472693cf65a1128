"""Prometheus's scrape targets from the inventory: one file_sd list per job, each endpoint labelled with its inventory
host, and the listeners whose certificates the blackbox exporter reads. During a replacement the failed host's
endpoint is scraped under the replacement's name (the name its certificate covers), on the same port."""

import re

_PORT = re.compile(r":([0-9]+)$")


def _port(endpoint):
    return _PORT.search(endpoint).group(1)


def scrape_targets(jobs, replaced, names, listener_ports):
    """{job: [{"targets": [endpoint], "labels": {"host": host}}], "blackbox": [...]} from jobs ({job: {host:
    "name:port"}}, the secured jobs of the connection role's kafka_metrics_scrape), replaced ({failed host:
    replacement}, {} outside a replacement), names ({host: "name:port"}, the replacements by the names they are
    reached at, whatever the port) and listener_ports ({job: the port of the listener whose certificate the blackbox
    exporter reads}, for the jobs that have one). A replacement keeps the failed host's port; the blackbox probe is
    labelled with the job as its kind."""
    out = {"blackbox": []}
    for job, targets in jobs.items():
        out[job] = []
        for host, endpoint in targets.items():
            new = replaced.get(host, host)
            if new != host:
                endpoint = _PORT.sub(f":{_port(endpoint)}", names[new])
            out[job].append({"targets": [endpoint], "labels": {"host": new}})
            if job in listener_ports:
                out["blackbox"].append({"targets": [_PORT.sub(f":{listener_ports[job]}", endpoint)],
                                        "labels": {"host": new, "kind": job}})
    return out
