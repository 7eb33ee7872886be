#!/usr/bin/env python3
"""Runs the same attention shapes through attnlab's C++ benchmark (tiled and
the GEMM ceiling, one run with --benchmark_format=json), NumPy (the lab's
way: S = Q @ K.T / sqrt(d); masked with np.where; softmax; @ V) and PyTorch's
CPU path (torch 1.13 has no public scaled_dot_product_attention: the same
matmul / softmax / matmul composition), and prints times and the ratios
NumPy/tiled and PyTorch/tiled. See PERFORMANCE.md.

    /usr/bin/python3 bench/compare.py [--bench build/bench/attnlab_bench] [--T 256 1024 4096]

NumPy and PyTorch run in child processes whose environment lacks
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE (if this machine sets them): only
for those processes, never for tests or CI. The BLAS each one runs is
reported (threadpoolctl if it is installed, else NumPy's build config).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CAP_MIB = 1024  # the Python forms hold S and A (T x T): skipped above this, like the naive C++ form


def best_time(fn, min_total=1.0, min_runs=3):
    fn()  # warm-up
    times, start = [], time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_total:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 50:
            break
    return min(times)


def worker(lib, shapes):
    """Runs in a child process: times every shape, prints JSON on stdout."""
    import numpy as np
    out = {"figures": [], "info": {}}
    try:
        import threadpoolctl
        out["info"]["blas"] = threadpoolctl.threadpool_info()
    except ImportError:
        out["info"]["blas"] = "threadpoolctl not installed"
    if lib == "numpy":
        cfg = np.__config__
        blas = getattr(cfg, "blas_opt_info", None) or getattr(cfg, "blas_ilp64_opt_info", None)
        out["info"]["numpy"] = np.__version__
        out["info"]["numpy_blas_config"] = str(blas)
    else:
        import torch
        torch.set_num_threads(os.cpu_count())
        out["info"]["torch"] = torch.__version__
        out["info"]["torch_threads"] = torch.get_num_threads()
        out["info"]["torch_config"] = [l.strip() for l in torch.__config__.show().splitlines()
                                       if "BLAS" in l or "OpenMP" in l or "CPU capability" in l]
    for (dtype, T, d, causal) in shapes:
        if 2 * T * T * (4 if dtype == "float" else 8) / 2**20 > CAP_MIB:
            out["figures"].append({"type": dtype, "T": T, "d": d, "causal": causal, "seconds": None})
            continue
        rng = np.random.default_rng(1)
        npt = np.float32 if dtype == "float" else np.float64
        Q, K, V = (rng.uniform(-1, 1, (T, d)).astype(npt) for _ in range(3))
        mask = np.triu(np.ones((T, T), dtype=bool), 1) if causal else None  # True = forbidden
        if lib == "numpy":
            def run():
                S = Q @ K.T / np.sqrt(npt(d))
                if mask is not None:
                    S = np.where(mask, -np.inf, S)
                S = S - S.max(axis=1, keepdims=True)
                A = np.exp(S)
                A /= A.sum(axis=1, keepdims=True)
                return A @ V
        else:
            import torch
            q, k, v = (torch.from_numpy(x) for x in (Q, K, V))
            m = torch.from_numpy(mask) if mask is not None else None
            def run():
                with torch.no_grad():
                    S = (q @ k.T) / math.sqrt(d)
                    if m is not None:
                        S = S.masked_fill(m, float("-inf"))
                    return torch.softmax(S, dim=-1) @ v
        out["figures"].append({"type": dtype, "T": T, "d": d, "causal": causal,
                               "seconds": best_time(run)})
    json.dump(out, sys.stdout)


def run_child(lib, shapes):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", lib, "--shapes", json.dumps(shapes)]
    return json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "attnlab_bench"))
    ap.add_argument("--T", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--d", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--repetitions", type=int, default=3, help="C++ repetitions (the median is used)")
    ap.add_argument("--cxx-filter", default="", help="--benchmark_filter for the C++ run (default: every benchmark)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--shapes", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, [tuple(s) for s in json.loads(a.shapes)])
        return 0
    shapes = [(t, T, d, c) for t in ("float", "double") for T in a.T for d in a.d for c in (False, True)]
    # The whole C++ benchmark (every shape, naive, tiled, GEMM), once: its
    # summary of ratios (stderr) and the tiled times below come from this run.
    cmd = [a.bench, "--benchmark_format=json", "--benchmark_repetitions=%d" % a.repetitions] + (["--benchmark_filter=" + a.cxx_filter] if a.cxx_filter else [])
    proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
    cpp = json.loads(proc.stdout)
    print("C++ benchmark (%s):%s" % (" ".join(cmd), proc.stderr))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    cxx = {}
    for b in cpp["benchmarks"]:
        if b.get("error_occurred"):
            continue
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue  # with --benchmark_repetitions the median is kept (it comes last)
        _, impl, dtype, T, d, mask = b["name"].split("/")[:6]
        cxx[(impl, dtype, int(T[2:]), int(d[2:]), mask == "causal")] = \
            (b["real_time"] * scale[b["time_unit"]], b.get("label", ""))
    py = {lib: run_child(lib, shapes) for lib in ("numpy", "torch")}
    ctx = cpp["context"]
    print("date: %s; machine: %s, %s CPUs; load average %s; C++ tiled kernel: %s" % (
        ctx.get("date", "?"), ctx.get("host_name", "?"), ctx.get("num_cpus", "?"),
        ctx.get("load_avg", "?"),
        next((v[1] for v in cxx.values() if v[1]), "?")))
    for lib in py:
        print("%s: %s" % (lib, json.dumps(py[lib]["info"])))
    print("%-6s %6s %4s %-8s %11s %11s %11s %11s %9s %9s" % (
        "type", "T", "d", "mask", "tiled s", "GEMM s", "numpy s", "torch s", "np/tiled", "pt/tiled"))
    for (dtype, T, d, causal) in shapes:
        t = cxx.get(("tiled", dtype, T, d, causal), (None,))[0]
        g = cxx.get(("gemm", dtype, T, d, False), (None,))[0]
        n = next(f["seconds"] for f in py["numpy"]["figures"]
                 if (f["type"], f["T"], f["d"], f["causal"]) == (dtype, T, d, causal))
        p = next(f["seconds"] for f in py["torch"]["figures"]
                 if (f["type"], f["T"], f["d"], f["causal"]) == (dtype, T, d, causal))
        fmt = lambda x: "%11.5f" % x if x else "%11s" % "skipped"
        ratio = lambda x: "%9.1f" % (x / t) if x and t else "%9s" % "-"
        print("%-6s %6d %4d %-8s %s %s %s %s %s %s" % (
            dtype, T, d, "causal" if causal else "none", fmt(t), fmt(g), fmt(n), fmt(p),
            ratio(n), ratio(p)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
