# Sourced by the dist/fetch_*.sh scripts. fetch_pinned FILE SHA256 COMMAND...: unless FILE is there with SHA256,
# runs COMMAND (which puts FILE in place), checks FILE against SHA256 (a mismatch removes it and fails), and writes
# that sha256 to FILE.sha256 (the lab inventory reads it).
fetch_pinned() {
  local file=$1 sha256=$2
  shift 2
  if [[ -f "$file" ]] && echo "$sha256  $file" | sha256sum --check --status; then
    echo "up to date: $file"
    return 0
  fi
  mkdir -p "$(dirname "$file")"
  "$@"
  if ! echo "$sha256  $file" | sha256sum --check --status; then
    echo "$file does not have the pinned sha256 $sha256: not using it" >&2
    rm -f "$file"
    return 1
  fi
  echo "$sha256" > "$file.sha256"
  echo "fetched $file (sha256 $sha256)"
}
