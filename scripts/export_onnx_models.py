#!/usr/bin/python3
"""Export torchvision ResNet-18, ResNet-50 and MobileNet-V2 as small ONNX test models for sparsemap.

The models carry their architecture only: random weights (weights=None) and
export_params=False, so every weight is a graph input without an initializer and each
file is a few hundred KB. Opset 13, fixed input 1x3x224x224 (sparsemap rejects dynamic
dimensions). The outputs are committed under data/onnx/; make test never runs this script.

Needs Debian's PyTorch (not pip's); run it with the system Python:
    sudo apt-get install -y --no-install-recommends python3-torch python3-torchvision
    /usr/bin/python3 scripts/export_onnx_models.py [--out data/onnx] [--models resnet50 ...]
The `onnx` Python package is not needed (torch.onnx serialises the graph itself).
"""
import argparse
import os
import sys

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
}
OPSET = 13  # libonnx 1.12 (Debian 12) reads opsets up to 17


def export(name, out_dir):
    torch.manual_seed(0)
    model = MODELS[name](weights=None).eval()
    path = os.path.join(out_dir, name + ".onnx")
    dummy = torch.zeros(1, 3, 224, 224)
    with torch.no_grad():
        torch.onnx.export(
            model,
            dummy,
            path,
            export_params=False,
            opset_version=OPSET,
            do_constant_folding=False,
            input_names=["input"],
            output_names=["logits"],
            training=torch.onnx.TrainingMode.EVAL,
        )
    print(f"{path}: {os.path.getsize(path)} bytes")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "data", "onnx"),
                        help="output folder (default: data/onnx)")
    parser.add_argument("--models", nargs="+", default=sorted(MODELS), choices=sorted(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models:
        export(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
