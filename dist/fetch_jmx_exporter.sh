#!/usr/bin/env bash
# Fetches the Prometheus JMX exporter agent (every broker, KRaft controller and ZooKeeper member runs it: the
# jmx_exporter role) from Maven Central into OUT_DIR, checks it against the sha256 pinned here, and writes that sha256
# next to it (the lab inventory's jmx_exporter_jar_checksum reads it). Skips the work when the jar is there and sound.
set -euo pipefail
source "$(dirname "$0")/pinned.sh"
version=1.0.1
sha256=7d61f737fd661610ccc14aea79764faa1ea94a340cbc8f0029b3d2edea3d80c1
out_dir=$(realpath -m "${1:?usage: fetch_jmx_exporter.sh OUT_DIR}")
fetch_pinned "$out_dir/jmx_prometheus_javaagent-$version.jar" "$sha256" \
  mvn -B -q dependency:copy -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$version" -DoutputDirectory="$out_dir"
