#!/usr/bin/env python3
"""Cost-model calls per second from Python against C++ and MAESTRO, measured in one run.

  (a) C++: bench/cost_model_bench's BM_Evaluate_ResNet50 (one thread, random two-level
      mappings of ResNet-50's GEMM-class layers on gamma-edge), run and parsed from its JSON;
  (b) Python, single form: sparsemap.evaluate(layer, arch, mapping) per call, on a pool drawn
      the same way (tests/support/random_mappings.h's distribution, rewritten here: per level a
      random loop order, one spatial dimension other than R/S, tiles uniform in 1..parent, R and
      S whole, a cluster size uniform in 1..min(PEs, 64)), built before timing;
  (c) Python, batch form: sparsemap.evaluate_batch(layer, arch, [mappings]) on one thread (and
      on every core, reported beside it), per mapping;
  (d) MapEnv: 10,000 steps of a random policy (action_space.sample()) on a ResNet-50 layer;
  (e) with --maestro PATH: MAESTRO per call, as GAMMA drives it: write the layer and its mapping
      as a .m file, start MAESTRO on it, wait (N calls, each a fresh process).

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--build build]
           [--maestro /tmp/maestro-src/maestro] [--json out.json]
"""
import argparse
import json
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=str(ROOT / "build"), help="build folder (default build/)")
    p.add_argument("--pool", type=int, default=8192, help="distinct (layer, mapping) pairs")
    p.add_argument("--seconds", type=float, default=2.0, help="time per Python measurement")
    p.add_argument("--maestro", default="", help="MAESTRO binary: also time it per call")
    p.add_argument("--maestro-calls", type=int, default=30, help="MAESTRO runs to time")
    p.add_argument("--json", default="", help="write the figures as JSON to this file")
    return p.parse_args()


def loop_dims(l):
    """(letter, primed, extent, whole) per dimension GAMMA maps, as random_mappings.h."""
    if l.kind == "GEMM":
        return [("M", False, l.M, False), ("N", False, l.N, False), ("K", False, l.K, False)]
    if l.kind == "FC":
        d = [("N", False, l.N, False)] if l.N > 1 else []
        return d + [("K", False, l.K, False), ("C", False, l.C, False)]
    d = [("N", False, l.N, False)] if l.N > 1 else []
    if l.kind != "DSCONV":
        d.append(("K", False, l.K, False))
    return d + [("C", False, l.C, False), ("Y", True, l.out_y, False),
                ("X", True, l.out_x, False), ("R", False, l.R, True), ("S", False, l.S, True)]


def random_mapping_text(l, num_pes, rng):
    dims = loop_dims(l)
    parent = [e for _, _, e, _ in dims]
    lines = []
    for level in range(2):
        order = list(range(len(dims)))
        rng.shuffle(order)
        spatial = rng.randrange(len(dims))
        while dims[spatial][3] and len(dims) > 2:
            spatial = rng.randrange(len(dims))
        if level == 1:
            lines.append(f"Cluster({rng.randint(1, min(num_pes, 64))},P);")
        tiles = list(parent)
        for i in order:
            letter, primed, extent, whole = dims[i]
            t = extent if whole else rng.randint(1, parent[i])
            tiles[i] = t
            kind = "SpatialMap" if i == spatial else "TemporalMap"
            lines.append(f"{kind}({t},{t}) {letter}{chr(39) if primed else ''};")
        parent = tiles
    return "\n".join(lines)


def make_pool(sm, n, hw):
    layers = sm.zoo("resnet50").gemm_layers
    rng = random.Random(2024)
    pool = []
    for i in range(n):
        l = layers[i % len(layers)]
        pool.append((l, sm.Mapping.from_dfsl(random_mapping_text(l, hw.num_pes, rng), l)))
    return layers, pool


def cpp_rate(build):
    """(per CPU-second, per wall-second) of BM_Evaluate_ResNet50; Google Benchmark's
    items_per_second is per CPU-second."""
    exe = pathlib.Path(build) / "cost_model_bench"
    out = subprocess.run([str(exe), "--benchmark_filter=BM_Evaluate_ResNet50$",
                          "--benchmark_min_time=2", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    b = json.loads(out)["benchmarks"][0]
    scale = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}[b.get("time_unit", "ns")]
    return 1.0 / (b["cpu_time"] / scale), 1.0 / (b["real_time"] / scale)


def timed(run, seconds):
    """Calls run() (which returns the evaluations it made) until `seconds` of CPU time have
    passed; returns (evaluations per CPU-second, per wall-second)."""
    calls, cpu0, wall0 = 0, time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds:
        calls += run()
    return calls / (time.process_time() - cpu0), calls / (time.perf_counter() - wall0)


def single_rate(sm, hw, pool, seconds):
    evaluate = sm.evaluate

    def run():
        for l, m in pool:
            evaluate(l, hw, m)
        return len(pool)

    return timed(run, seconds)


def batch_rate(sm, hw, pool, seconds, threads):
    by_layer = {}
    for l, m in pool:
        by_layer.setdefault(l.name, (l, []))[1].append(m)
    groups = list(by_layer.values())

    def run():
        for l, ms in groups:
            sm.evaluate_batch(l, hw, ms, threads=threads)
        return len(pool)

    return timed(run, seconds)


def maestro_per_call(sm, binary, hw, pool, calls):
    """(wall, CPU) seconds per MAESTRO evaluation: write the .m file, run the process, wait.
    CPU is the children's user + system time (getrusage), the figure load does not inflate."""
    hw_text = (f"num_pes: {hw.num_pes}\nl1_size_cstr: {hw.l1_bytes}\n"
               f"l2_size_cstr: {hw.l2_bytes}\nnoc_bw_cstr: {int(hw.noc_words_per_cycle)}\n"
               f"offchip_bw_cstr: {int(hw.offchip_words_per_cycle)}\n")
    convs = [(l, m) for l, m in pool if l.kind == "CONV"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        hw_file = pathlib.Path(tmp) / "hw.m"
        hw_file.write_text(hw_text)
        start = time.perf_counter()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        for i in range(calls):
            l, m = convs[i % len(convs)]
            net = pathlib.Path(tmp) / f"cand{i}.m"
            net.write_text(sm.write_dfsl([l], [m], name=f"cand{i}"))
            rc = subprocess.run([binary, f"--HW_file={hw_file}", f"--Mapping_file={net}",
                                 "--print_res=false", "--print_res_csv_file=true",
                                 "--print_log_file=false"], cwd=tmp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            failed += rc != 0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        return (time.perf_counter() - start) / calls, cpu / calls, failed


def main():
    args = parse_args()
    sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
    import sparsemap as sm

    hw = sm.arch("gamma-edge")
    _, pool = make_pool(sm, args.pool, hw)
    cpp, cpp_wall = cpp_rate(args.build)
    single, single_wall = single_rate(sm, hw, pool, args.seconds)
    batch1, batch1_wall = batch_rate(sm, hw, pool, args.seconds, threads=1)
    _, batch_all_wall = batch_rate(sm, hw, pool, args.seconds, threads=0)
    res = {"cpp_evals_per_cpu_s": cpp, "cpp_evals_per_wall_s": cpp_wall,
           "python_single_evals_per_cpu_s": single, "python_single_evals_per_wall_s": single_wall,
           "python_batch_evals_per_cpu_s": batch1, "python_batch_evals_per_wall_s": batch1_wall,
           "python_batch_all_threads_evals_per_wall_s": batch_all_wall,
           "threads": os.cpu_count(), "batch_over_cpp_pct": 100 * batch1 / cpp,
           "single_over_cpp_pct": 100 * single / cpp}
    print("evaluations per second          per CPU-second  per wall-second  vs C++ (CPU)")
    print(f"C++ cost_model_bench, 1 thread  {cpp:14,.0f}  {cpp_wall:15,.0f}")
    print(f"Python evaluate(), single call  {single:14,.0f}  {single_wall:15,.0f}  "
          f"{100 * single / cpp:11.0f}%")
    print(f"Python evaluate_batch, 1 thread {batch1:14,.0f}  {batch1_wall:15,.0f}  "
          f"{100 * batch1 / cpp:11.0f}%")
    print(f"Python evaluate_batch, {os.cpu_count():2d} thr.  {'-':>14}  {batch_all_wall:15,.0f}")
    env = sm.MapEnv(sm.zoo("resnet50").gemm_layers[4], hw, episode_steps=100)
    env.action_space.seed(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(10_000):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    res["env_10000_steps_wall_s"] = time.perf_counter() - start
    print(f"MapEnv, 10,000 random-policy steps: {res['env_10000_steps_wall_s']:.2f} s wall")
    if args.maestro:
        per_call, cpu_per_call, failed = maestro_per_call(sm, args.maestro, hw, pool,
                                                           args.maestro_calls)
        res.update(maestro_wall_s_per_call=per_call, maestro_cpu_s_per_call=cpu_per_call,
                   maestro_calls=args.maestro_calls, maestro_failed=failed,
                   single_speedup_over_maestro_wall=per_call * single_wall,
                   single_speedup_over_maestro_cpu=cpu_per_call * single)
        print(f"MAESTRO, .m file + process per call ({args.maestro_calls} calls, {failed} failed):"
              f" {per_call * 1e3:.1f} ms wall, {cpu_per_call * 1e3:.1f} ms CPU per call")
        print(f"  Python single call is {per_call * single_wall:,.0f}x faster (wall), "
              f"{cpu_per_call * single:,.0f}x (CPU)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
