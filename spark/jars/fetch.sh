#!/usr/bin/env bash
# Fetches Spark's Kafka source and the jars it needs beyond PySpark's own (pom.xml) from Maven Central
# into OUT_DIR, for spark/validate_recovery.py. Skips the work when OUT_DIR matches the pom already.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=$(realpath -m "${1:?usage: fetch.sh OUT_DIR}")  # maven resolves relative paths against the pom
pom_sum=$(sha256sum "$here/pom.xml" | cut -d' ' -f1)
if [[ "$(cat "$out_dir/.pom-sha256" 2>/dev/null)" == "$pom_sum" ]]; then
  echo "spark kafka jars up to date: $out_dir"
  exit 0
fi
rm -rf "$out_dir"
mkdir -p "$out_dir"
# Only what PySpark lacks: its own scala, hadoop and slf4j jars must not be shadowed by other versions.
mvn -B -q -s "$here/settings.xml" -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
  -DincludeArtifactIds=spark-sql-kafka-0-10_2.13,spark-token-provider-kafka-0-10_2.13,kafka-clients,commons-pool2 \
  -DoutputDirectory="$out_dir"
echo "$pom_sum" > "$out_dir/.pom-sha256"
echo "fetched $(ls "$out_dir"/*.jar | wc -l) jars into $out_dir"
