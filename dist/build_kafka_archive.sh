#!/usr/bin/env bash
# Builds kafka_<scala>-<version>.tgz with the official archive's layout (kafka_<scala>-<version>/libs/*.jar)
# from the jars on Maven Central, and writes its sha256 next to it. Skips the work when the archive
# for this pom already exists. Also unpacks it to OUT_DIR/current: the controller runs Kafka's own tools
# from there (kafka_tools_home in the lab inventory).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=${1:?usage: build_kafka_archive.sh OUT_DIR}
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")
scala=$(sed -n 's:.*<scala.binary.version>\(.*\)</scala.binary.version>.*:\1:p' "$here/pom.xml")
name="kafka_${scala}-${version}"
archive="$out_dir/$name.tgz"
pom_sum=$(sha256sum "$here/pom.xml" | cut -d' ' -f1)

unpack_tools() {
  if [[ ! -d "$out_dir/$name/libs" ]]; then
    tar -xzf "$archive" -C "$out_dir"
  fi
  ln -sfn "$name" "$out_dir/current"
}

if [[ -f "$archive" && -f "$archive.sha256" && "$(cat "$archive.pom-sha256" 2>/dev/null)" == "$pom_sum" ]]; then
  echo "kafka archive up to date: $archive"
  unpack_tools
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$name/libs" "$work/$name/config" "$out_dir"
mvn -B -q -f "$here/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$work/$name/libs"
# The official archive ships no logback; ZooKeeper must log through reload4j like the broker.
rm -f "$work/$name/libs"/logback-*.jar
echo "$version" > "$work/$name/config/VERSION"
# Reproducible archive: fixed order, owner and mtime, so the same jars give the same sha256.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00Z' \
  -C "$work" -cf - "$name" | gzip -n > "$archive.tmp"
mv "$archive.tmp" "$archive"
sha256sum "$archive" | cut -d' ' -f1 > "$archive.sha256"
echo "$pom_sum" > "$archive.pom-sha256"
rm -rf "${out_dir:?}/$name"
unpack_tools
echo "built $archive ($(ls "$work/$name/libs" | wc -l) jars, sha256 $(cat "$archive.sha256"))"
