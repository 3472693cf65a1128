#!/usr/bin/env bash
# Fetches the confluent-kafka wheel that the kit's consumer lag exporter runs on the monitoring host (Debian 12's
# Python 3.11) from PyPI into OUT_DIR, checks it against the sha256 pinned here, and writes that sha256 next to it (the
# lab inventory's monitoring_confluent_kafka_wheel_checksum reads it). Not Debian's python3-confluent-kafka: its
# librdkafka 2.0.2 answers Kafka 4's SCRAM challenge wrongly (fixed in librdkafka 2.6.1), so the exporter could not log
# in to a 4.x cluster. Skips the work when the wheel is there and sound.
set -euo pipefail
version=2.16.1
wheel_name=confluent_kafka-$version-cp311-cp311-manylinux_2_28_x86_64.whl
sha256=24f613cc81a856b6fbb2d7d11044a9aa770044eecc1f83ff84618688b056be06
out_dir=$(realpath -m "${1:?usage: fetch_confluent_kafka_wheel.sh OUT_DIR}")
wheel="$out_dir/$wheel_name"
if [[ -f "$wheel" ]] && echo "$sha256  $wheel" | sha256sum --check --status; then
  echo "confluent-kafka wheel up to date: $wheel"
  exit 0
fi
mkdir -p "$out_dir"
pip download -q "confluent-kafka==$version" --no-deps --only-binary=:all: --implementation cp --python-version 3.11 \
  --abi cp311 --platform manylinux_2_28_x86_64 -d "$out_dir"
if ! echo "$sha256  $wheel" | sha256sum --check --status; then
  echo "$wheel does not have the pinned sha256 $sha256: not using it" >&2
  rm -f "$wheel"
  exit 1
fi
echo "$sha256" > "$wheel.sha256"
echo "fetched $wheel (sha256 $sha256)"
