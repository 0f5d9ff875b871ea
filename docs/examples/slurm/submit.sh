#!/bin/bash
# submit.sh: submit an anot experiment as SHARDS array tasks and a merge
# job that starts when every task succeeded.
#
#   ANOT_ARGS="--method cot --scaling --model gpt-4o-mini" ./submit.sh 8
#   ANOT_STUDY=$PWD/robustness.ini ANOT_NAME=robustness ./submit.sh 8   (a study)
#
# (The jobs run in ANOT_OUT: give ANOT_STUDY as an absolute path.)
# Prints the two job ids.  Extra sbatch options (partition, account, GPUs)
# go in SBATCH_ARGS, e.g. SBATCH_ARGS="--partition=gpu --gres=gpu:1".
set -euo pipefail

shards=${1:?usage: submit.sh SHARDS}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ANOT_OUT=${ANOT_OUT:-$PWD/results}
export ANOT_NAME=${ANOT_NAME:-experiment}
export ANOT_SHARDS=$shards
mkdir -p "$ANOT_OUT"

# shellcheck disable=SC2086
array=$(sbatch --parsable --export=ALL ${SBATCH_ARGS:-} --array="0-$((shards - 1))" \
          --chdir="$ANOT_OUT" "$here/anot-shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" \
          --chdir="$ANOT_OUT" "$here/anot-merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
