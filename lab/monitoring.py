"""Reading the lab's metrics as Prometheus does: a node's endpoint over the scheme, CA and login the connection role
derives (the admin's client settings, "metrics"), and the monitoring host's Prometheus and Alertmanager, which answer
on its loopback only, through SSH as on-call would."""

import json
import shlex
import ssl
import urllib.error
import urllib.parse
import urllib.request
from base64 import b64encode

import yaml

from . import cluster_settings, config
from .machines import run_on

# How long the kit's planned work keeps its silences after it ends (the monitoring role's monitoring_silence_grace)
SILENCE_GRACE_S = yaml.safe_load((config.REPO / "roles/monitoring/defaults/main.yml").read_text())[
    "monitoring_silence_grace"]
# How long to listen after planned work for a notification it caused: past its silences' end, plus an evaluation, a
# scrape and Alertmanager's group_wait (10 s each) and a margin
QUIET_AFTER_PLANNED_S = SILENCE_GRACE_S + 60


def scrape(endpoint, username=None, password=None, tls_max=None):
    """(HTTP status, text) of one metrics endpoint ("host:port"), with the scrape login unless another is given
    (username="" sends none); tls_max=ssl.TLSVersion.TLSv1_2 offers no more than that. An endpoint that answers
    no TLS handshake raises ssl.SSLError."""
    metrics = cluster_settings.load()["metrics"]
    context = None
    if metrics["scheme"] == "https":
        context = ssl.create_default_context(cafile=metrics["ca_location"])
        if tls_max:
            context.maximum_version = tls_max
    request = urllib.request.Request(f"{metrics['scheme']}://{endpoint}/metrics")
    username = metrics["username"] if username is None else username
    if username:
        login = f"{username}:{metrics['password'] if password is None else password}"
        request.add_header("Authorization", "Basic " + b64encode(login.encode()).decode())
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except urllib.error.URLError as exc:  # a refused handshake: its own error
        if isinstance(exc.reason, ssl.SSLError):
            raise exc.reason from None
        raise


def monitoring_host():
    return next(h for h in config.load_hosts() if "monitoring" in h.groups)


def get(port, path, body=None):
    """What a loopback endpoint of the monitoring host answers (Prometheus 9090, Alertmanager 9093, the blackbox
    exporter 9115), a POST of the JSON body when given, fetched there with its python3."""
    script = ("import sys, urllib.request as u; body = sys.argv[2].encode() if sys.argv[2] else None; "
              "r = u.urlopen(u.Request(sys.argv[1], data=body, headers={'Content-Type': 'application/json'}), "
              "timeout=20); sys.stdout.write(r.read().decode())")
    url = f"http://127.0.0.1:{port}{path}"
    payload = json.dumps(body) if body is not None else ""
    return run_on(monitoring_host(), f"python3 -c {shlex.quote(script)} {shlex.quote(url)} {shlex.quote(payload)}")


def api(port, path, body=None):
    return json.loads(get(port, path, body) or "null")


def prometheus(path):
    return api(9090, path)["data"]


def query(expr):
    """The value of a PromQL expression that yields one sample, as a float."""
    result = prometheus("/api/v1/query?query=" + urllib.parse.quote(expr))["result"]
    if len(result) != 1:
        raise ValueError(f"{expr} gave {len(result)} samples, not one")
    return float(result[0]["value"][1])


def alertmanager(path, body=None):
    return api(9093, path, body)
