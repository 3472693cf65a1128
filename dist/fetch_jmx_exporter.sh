#!/usr/bin/env bash
# Fetches the Prometheus JMX exporter agent (every broker, KRaft controller and ZooKeeper member runs it: the
# jmx_exporter role) from Maven Central into OUT_DIR, checks it against the sha256 pinned here, and writes that sha256
# next to it (the lab inventory's jmx_exporter_jar_checksum reads it). Skips the work when the jar is there and sound.
set -euo pipefail
version=1.0.1
sha256=7d61f737fd661610ccc14aea79764faa1ea94a340cbc8f0029b3d2edea3d80c1
out_dir=$(realpath -m "${1:?usage: fetch_jmx_exporter.sh OUT_DIR}")
jar="$out_dir/jmx_prometheus_javaagent-$version.jar"
if [[ -f "$jar" ]] && echo "$sha256  $jar" | sha256sum --check --status; then
  echo "jmx exporter agent up to date: $jar"
  exit 0
fi
mkdir -p "$out_dir"
mvn -B -q dependency:copy -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$version" -DoutputDirectory="$out_dir"
if ! echo "$sha256  $jar" | sha256sum --check --status; then
  echo "$jar does not have the pinned sha256 $sha256: not using it" >&2
  rm -f "$jar"
  exit 1
fi
echo "$sha256" > "$jar.sha256"
echo "fetched $jar (sha256 $sha256)"
