#!/usr/bin/env bash
# Builds kafka_<scala>-<version>.tgz, with the official archive's layout (kafka_<scala>-<version>/libs/*.jar), from
# the jars on Maven Central, for each VERSION (default: every release of plugins/module_utils/kafka_versions.py), and
# writes its sha256 next to it. Each release logs as its facts say: "log4j" through reload4j (3.x), "log4j2" through
# log4j-core (4.x; its POMs bring log4j-api and log4j-core): the builder adds the SLF4J binding that matches the
# slf4j-api and log4j jars the release brought. Skips a release whose archive this pom and script already built. Also
# unpacks each to OUT_DIR/kafka_<scala>-<version>: the controller runs that release's tools from there (the lab's
# kafka_tools_home).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out_dir=${1:?usage: build_kafka_archive.sh OUT_DIR [VERSION...]}
shift
facts() {  # facts [VERSION]: the releases of the version table, or how VERSION logs
  PYTHONPATH="$here/../.cache/collections" python3 -c 'import sys
from ansible_collections.kafkaops.toolkit.plugins.module_utils import kafka_versions
print(kafka_versions.facts(sys.argv[1])["logging"]["name"] if sys.argv[1:] else " ".join(kafka_versions.RELEASES))' "$@"
}
versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || read -r -a versions <<< "$(facts)"
scala=$(sed -n 's:.*<scala.binary.version>\(.*\)</scala.binary.version>.*:\1:p' "$here/pom.xml")
recipe_sum=$(cat "$here/pom.xml" "$0" | sha256sum | cut -d' ' -f1)
mkdir -p "$out_dir"

build() {
  local version=$1 name="kafka_${scala}-$1"
  local archive="$out_dir/$name.tgz" logging work libs
  if [[ -f "$archive" && -f "$archive.sha256" && "$(cat "$archive.recipe-sha256" 2>/dev/null)" == "$recipe_sum" ]]; then
    echo "kafka archive up to date: $archive"
  else
    logging=$(facts "$version")
    work=$(mktemp -d)
    libs="$work/$name/libs"
    mkdir -p "$libs" "$work/$name/config"
    mvn -B -q -f "$here/pom.xml" -Dkafka.version="$version" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$libs"
    # The official archive ships no logback; ZooKeeper must log through the broker's backend.
    rm -f "$libs"/logback-*.jar
    # The SLF4J binding: 2.8 to 3.9 bring one through kafka-tools (slf4j-log4j12 up to 3.0, slf4j-reload4j after;
    # slf4j-reload4j of 2.8's slf4j-api 1.7.30 does not exist), 4.x none.
    local binding
    if ! ls "$libs" | grep -qE '^(slf4j-log4j12|slf4j-reload4j|log4j-slf4j-impl)-[0-9]'; then
      if [[ $logging == log4j ]]; then
        binding="org.slf4j:slf4j-reload4j:$(jar_version "$libs" slf4j-api)"
      else
        binding="org.apache.logging.log4j:log4j-slf4j-impl:$(jar_version "$libs" log4j-core)"
      fi
      mvn -B -q -f "$here/pom.xml" -Dkafka.version="$version" dependency:copy -Dartifact="$binding" \
        -DoutputDirectory="$libs"
    fi
    echo "$version" > "$work/$name/config/VERSION"
    # Reproducible archive: fixed order, owner and mtime, so the same jars give the same sha256.
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00Z' \
      -C "$work" -cf - "$name" | gzip -n > "$archive.tmp"
    mv "$archive.tmp" "$archive"
    sha256sum "$archive" | cut -d' ' -f1 > "$archive.sha256"
    echo "$recipe_sum" > "$archive.recipe-sha256"
    rm -rf "${out_dir:?}/$name" "$work"
    echo "built $archive ($logging, $(tar -tzf "$archive" | grep -c '\.jar$') jars, sha256 $(cat "$archive.sha256"))"
  fi
  [[ -d "$out_dir/$name/libs" ]] || tar -xzf "$archive" -C "$out_dir"
}

jar_version() {  # jar_version LIBS ARTIFACT: the version of ARTIFACT-<version>.jar in LIBS
  local jar
  jar=$(cd "$1" && ls "$2"-[0-9]*.jar | head -1)
  jar=${jar#"$2"-}
  echo "${jar%.jar}"
}

for version in "${versions[@]}"; do
  build "$version"
done
