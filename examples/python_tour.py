# %% [markdown]
# # A tour of sparsemap from Python
#
# Notebook-style (`# %%` cells: run it cell by cell in VS Code or Jupytext, or as a script):
# map a model onto an accelerator, plot where its time goes (matplotlib, when installed), prune
# the weights of its largest layer to 2:4 and to unstructured 90%, and multiply them with the
# library's SpMM kernels against NumPy's dense product.
#
#     PYTHONPATH=build/python python3 examples/python_tour.py --out tour/
#
# `--budget` (samples per distinct layer), `--model`, `--hw` and `--n` (columns of the dense
# operand) size it; python/tests/test_examples.py runs it with tiny settings.

# %%
import argparse
import pathlib
import time

import numpy as np

import sparsemap as sm

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--model", default="resnet18")
parser.add_argument("--hw", default="gamma-edge")
parser.add_argument("--budget", type=int, default=500)
parser.add_argument("--n", type=int, default=256, help="columns of the dense operand of SpMM")
parser.add_argument("--out", default="python_tour_out", help="folder for the plot and CSV")
args, _ = parser.parse_known_args()  # known args only: a notebook kernel passes its own
out = pathlib.Path(args.out)
out.mkdir(parents=True, exist_ok=True)
print(f"sparsemap {sm.__version__}; kernels: {sm.detected_isa()}")

# %% [markdown]
# ## 1. Map every layer of the model (GAMMA)
# `map_model` is `sparsemap map`: the same options, and the dict its `--json` writes.

# %%
t0 = time.perf_counter()
result = sm.map_model(args.model, args.hw, budget=args.budget, seed=1)
total = result["total"]
print(f"{result['model']} on {result['hw']}: {total['layers']} layers "
      f"({total['distinct_layers']} distinct), {total['runtime_cycles']:,} cycles, "
      f"{total['energy_nj'] / 1e3:.1f} uJ, geomean PE utilisation "
      f"{total['pe_utilization_geomean_pct']:.1f}% in {time.perf_counter() - t0:.2f} s")
layers = result["layers"]
with open(out / "layers.csv", "w") as f:
    f.write("name,runtime_cycles,energy_nj,pe_utilization_pct\n")
    for l in layers:
        f.write(f"{l['name']},{l['runtime_cycles']},{l['energy_nj']},{l['pe_utilization_pct']}\n")

# %% [markdown]
# ## 2. Where the cycles go (skipped without matplotlib)

# %%
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print("matplotlib is not installed: no plot (the data is in layers.csv)")
if plt is not None:
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(len(layers))
    ax.bar(x, [l["runtime_cycles"] for l in layers], color="tab:blue")
    ax.set_yscale("log")
    ax.set_xlabel("layer")
    ax.set_ylabel("cycles (log)")
    ax2 = ax.twinx()
    ax2.plot(x, [l["pe_utilization_pct"] for l in layers], "o-", color="tab:orange")
    ax2.set_ylabel("PE utilisation %")
    ax.set_title(f"{result['model']} on {result['hw']}: best mapping per layer")
    fig.tight_layout()
    fig.savefig(out / "layers.png", dpi=100)
    plt.close(fig)
    print(f"plot: {out / 'layers.png'}")

# %% [markdown]
# ## 3. Prune the largest layer's weights
# A convolution's weight K x C x R x S is pruned as the matrix K x (C R S), as prune-train does.
# Random normal values stand in for trained ones.

# %%
model = sm.zoo(args.model)
big = max((l for l in model.layers if l.is_gemm_class), key=lambda l: l.weight_elems)
shape = (big.K, big.C, big.R, big.S) if big.kind.startswith("CONV") else (big.K, big.C)
w = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
w2d = w.reshape(shape[0], -1)
print(f"largest layer {big.name}: weight {shape} -> {w2d.shape} matrix")
m24 = sm.prune_mask(w, "nm:2:4")  # exactly 2 kept in every group of 4 along a row
unstructured = sm.prune_mask(w, "unstructured", 0.9)
for name, mask in [("nm:2:4", m24), ("unstructured 90%", unstructured)]:
    print(f"  {name:17s} sparsity {1 - mask.mean():.3f}, relative error "
          f"{sm.relative_error(w2d, mask.reshape(w2d.shape)):.3f}")

# %% [markdown]
# ## 4. SpMM on the pruned layer
# The formats hold the kept entries; `spmm` runs the library's kernel with the GIL released.
# Component arrays (`indptr`, `indices`, `data`) are views of the C++ buffers, no copies.

# %%
b = np.random.default_rng(1).standard_normal((w2d.shape[1], args.n)).astype(np.float32)
cases = [("dense (OpenBLAS)", w2d * 1), ("nm:2:4", sm.prune_to(w2d, "nm:2:4")),
         ("csr 90%", sm.prune_to(w2d, "csr", 0.9)), ("cvse:8 90%", sm.prune_to(w2d, "cvse:8", 0.9))]
for name, a in cases:
    dense_a = a if isinstance(a, np.ndarray) else a.to_dense()
    c = sm.spmm(a, b)  # warm-up (threads, caches)
    t0 = time.perf_counter()
    c = sm.spmm(a, b)
    ms = (time.perf_counter() - t0) * 1e3
    err = np.abs(c - dense_a @ b).max() / max(1e-30, np.abs(dense_a).sum(1).max())
    fmt = "" if isinstance(a, np.ndarray) else f", {a.footprint['total_bytes'] / 1e3:.0f} kB"
    print(f"  {name:17s} {ms:7.2f} ms{fmt}, max error / row L1 {err:.1e}")
csr = cases[2][1]
same = csr.data.__array_interface__["data"][0] == csr.buffer_addresses()["values"]
print(f"csr.data views the C++ buffer: {same}")
print("done")
