#!/usr/bin/env bash
# Fetches the confluent-kafka wheel that the kit's consumer lag exporter runs on the monitoring host (Debian 12's
# Python 3.11) from PyPI into OUT_DIR, checks it against the sha256 pinned here, and writes that sha256 next to it (the
# lab inventory's monitoring_confluent_kafka_wheel_checksum reads it). Not Debian's python3-confluent-kafka: its
# librdkafka 2.0.2 answers Kafka 4's SCRAM challenge wrongly (fixed in librdkafka 2.6.1), so the exporter could not log
# in to a 4.x cluster. Skips the work when the wheel is there and sound.
set -euo pipefail
source "$(dirname "$0")/pinned.sh"
version=2.16.1
sha256=24f613cc81a856b6fbb2d7d11044a9aa770044eecc1f83ff84618688b056be06
out_dir=$(realpath -m "${1:?usage: fetch_confluent_kafka_wheel.sh OUT_DIR}")
fetch_pinned "$out_dir/confluent_kafka-$version-cp311-cp311-manylinux_2_28_x86_64.whl" "$sha256" \
  pip download -q "confluent-kafka==$version" --no-deps --only-binary=:all: --implementation cp --python-version 3.11 \
  --abi cp311 --platform manylinux_2_28_x86_64 -d "$out_dir"
