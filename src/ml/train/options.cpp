// `sparsemap train`'s options (run.h: option_table). Torch-free: compiled into the core
// library, since `sparsemap` built without libtorch registers these flags and hands the command
// over to `sparsemap-ml`.
#include "sparsemap/ml/train/run.h"

namespace sparsemap::ml::train {

const options::Table<Options>& option_table() {
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--model", "vit-tiny or char-gpt", F(model)},
      {"--data", "fashion-mnist (vit-tiny), kjv (char-gpt; Debian bible-kjv), or synthetic",
       F(data)},
      {"--data-dir", "Folder of Fashion-MNIST's IDX files", F(data_dir)},
      {"--recipe", "dense, ste, srste, mdgf-linear, mdgf-exp, sdgf-sparsify or sdgf-fine",
       F(recipe)},
      {"--nm", "Target N:M of every Linear in the blocks", F(nm)},
      {"--nm-attention", "N:M of the attention Linears (else --nm)", F(nm_attention)},
      {"--nm-mlp", "N:M of the MLP Linears (else --nm)", F(nm_mlp)},
      {"--sequence", "Structure decay: the ratios to step through, N:M,N:M,... (ending at --nm)",
       F(sequence)},
      {"--dense-fraction", "Dense phase, fraction of the run", F(dense_fraction)},
      {"--fine-fraction", "Fine-tune phase with a fixed binary mask, fraction of the run",
       F(fine_fraction)},
      {"--lambda", "SR-STE lambda_W", F(lambda)},
      {"--alpha",
       "Mask decay rate per step (0: beta reaches 0, or exp(-5), at 3/4 of the sparse phase)",
       F(alpha)},
      {"--quick", "The small model configuration", F(quick)},
      {"--epochs", "Epochs (char-gpt: train characters / (batch x context))", F(epochs)},
      {"--steps", "Optimiser steps instead of --epochs (0: epochs)", F(steps)},
      {"--batch", "Batch (0: 128 images or 64 windows)", F(batch)},
      {"--lr", "Peak learning rate of AdamW (0: 1e-3 ViT, 2e-3 GPT)", F(lr)},
      {"--weight-decay", "AdamW weight decay", F(weight_decay)},
      {"--train-limit", "First N training images / characters (0: all)", F(train_limit)},
      {"--test-limit", "First N test images / held-out characters", F(test_limit)},
      {"--eval-every", "Steps between evaluations (0: 10 per run)", F(eval_every)},
      {"--seed", "Seed of the model and the batches", F(seed)},
      {"--threads", "libtorch threads (0: all cores)", F(threads)},
      {"--checkpoint", "Write a checkpoint here at every evaluation", F(checkpoint)},
      {"--resume", "Continue from this checkpoint", F(resume)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--quiet", "No progress or summary", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::ml::train
