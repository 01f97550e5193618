#!/usr/bin/env bash
# The dense baselines of issue 8: vit-tiny on Fashion-MNIST (target >= 88% test accuracy) and
# char-gpt on the King James text (target <= 1.6 nats/char on the held-out books), with their
# training time. Not a ctest.
#
#   bench/ml/nm_dense.sh [SPARSEMAP_BINARY] [OUT_PREFIX] [VIT_EPOCHS] [GPT_STEPS]
#   (default: build/sparsemap, nm_dense -> nm_dense-vit.json, nm_dense-gpt.json, 15, 3000)
set -euo pipefail
bin=${1:-build/sparsemap}
out=${2:-nm_dense}
epochs=${3:-15}
steps=${4:-3000}
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" train --model vit-tiny --data fashion-mnist \
  --recipe dense --epochs "$epochs" --seed 1 --checkpoint "$out-vit.pt" --json "$out-vit.json"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" train --model char-gpt --data kjv \
  --recipe dense --steps "$steps" --seed 1 --checkpoint "$out-gpt.pt" --json "$out-gpt.json"
