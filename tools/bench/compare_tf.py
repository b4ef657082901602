"""dfx against TensorFlow 2.21, side by side, from the same TensorFlow client.

Starts a cluster of TensorFlow servers (tf.distribute.Server, one process per
task) and one of dfx servers (`dfx cluster up`) on free loopback ports,
builds each case's graph once with tf.compat.v1, and runs that same graph
from this process (tf.compat.v1.Session("grpc://...")) on both clusters
(the null step and the chain also from dfx's own C++ client, `dfx bench
--target`, which costs both sides far less per step than Python),
one step on each in turn so that both see the same (possibly busy) machine:
first with both sides' defaults (Grappler on, dfx's optimizer on), then with
optimizations off on both (the same ConfigProto: rewrite_options
.disable_meta_optimizer and optimizer_options.opt_level L0, which dfx
honours too). Every step's answer is checked; a wrong answer is counted and
makes the run fail.

Writes OUT/bench-results.json and OUT/bench-results.md (a markdown table
with dfx/TF ratios) and prints the table. Run it through tools/bench/compare_tf,
which finds TensorFlow's virtualenv (tools/tf_env).
"""

import argparse
import datetime
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "examples", "python"))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from bench_clusters import (cpu_seconds, server_pids,  # noqa: E402
                            start_dfx_cluster, start_tf_cluster)

tf1 = tf.compat.v1

STEP_TIMEOUT_MS = 300_000
MIB = 1 << 20
# How many steps a side runs in a row before the other side's turn
# (--steps-per-turn).
STEPS_PER_TURN = 1


def session_config(optimize):
    """The ConfigProto both sides get: empty (defaults) or optimizations
    off."""
    config = tf1.ConfigProto(operation_timeout_in_ms=STEP_TIMEOUT_MS)
    if not optimize:
        config.graph_options.optimizer_options.opt_level = (
            tf1.OptimizerOptions.L0)
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


RUN_OPTIONS = tf1.RunOptions(timeout_in_ms=STEP_TIMEOUT_MS)


def summary(latencies):
    """Latency statistics in microseconds (nearest-rank percentiles)."""
    s = sorted(latencies)

    def pct(p):
        k = max(0, min(len(s) - 1, int(np.ceil(p / 100 * len(s))) - 1))
        return s[k] * 1e6

    return {"steps": len(s), "min_us": s[0] * 1e6, "p50_us": pct(50),
            "p90_us": pct(90), "p99_us": pct(99), "max_us": s[-1] * 1e6,
            "mean_us": statistics.fmean(s) * 1e6}


# ---------------------------------------------------------------------------
# The cases. Each builds a tf.Graph and returns (graph, fetch, feed_dict,
# check), check(value) saying whether a step's answer is right.

def w(task):
    return f"/job:worker/task:{task}"


def null_step():
    g = tf.Graph()
    with g.as_default(), tf1.device(w(0)):
        c = tf.constant(42.0, name="c")
    return g, c, {}, lambda v: v == 42.0


def add_chain(n):
    """n scalar AddV2 in a chain on task 0, from a fed scalar."""
    g = tf.Graph()
    with g.as_default(), tf1.device(w(0)):
        x = tf1.placeholder(tf.float32, [], name="x")
        one = tf.constant(1.0, name="one")
        y = x
        for i in range(n):
            y = tf.raw_ops.AddV2(x=y, y=one, name=f"add_{i}")
    return g, y, {x: 3.0}, lambda v: v == 3.0 + n


def fan_out(n):
    """A fed scalar read by n AddV2 (each its own constant), summed by AddN
    in groups of 100, then once more."""
    g = tf.Graph()
    with g.as_default(), tf1.device(w(0)):
        x = tf1.placeholder(tf.float32, [], name="x")
        leaves = [tf.raw_ops.AddV2(x=x, y=tf.constant(float(i % 1000)),
                                   name=f"leaf_{i}") for i in range(n)]
        groups = [tf.math.add_n(leaves[i:i + 100], name=f"group_{i // 100}")
                  for i in range(0, n, 100)]
        total = tf.math.add_n(groups, name="total")
    want = n * 2.0 + sum(float(i % 1000) for i in range(n))
    return g, total, {x: 2.0}, lambda v: abs(v - want) <= 1e-5 * want


def recv_tensor(mib):
    """Fill mib MiB of float32 on task 1 (the value fed, so nothing folds it
    away), Sum on task 0: one RecvTensor of mib MiB per step."""
    n = mib * MIB // 4
    g = tf.Graph()
    with g.as_default():
        with tf1.device(w(1)):
            v = tf1.placeholder(tf.float32, [], name="v")
            big = tf.fill([n], v, name="big")
        with tf1.device(w(0)):
            total = tf.reduce_sum(big, name="total")
    return g, total, {v: 1.0}, lambda r: abs(r - n) <= 1e-3 * n


def matmul_layer(batch=64, width=1024):
    """relu(x @ W + b) on task 0, x fed, W and b constants; fetches the
    sum."""
    r = np.random.default_rng(7)
    xv = r.normal(size=(batch, width)).astype(np.float32)
    wv = (r.normal(size=(width, width)) * 0.03).astype(np.float32)
    bv = r.normal(size=(width,)).astype(np.float32) * 0.1
    want = float(np.maximum(xv.astype(np.float64) @ wv + bv, 0).sum())
    g = tf.Graph()
    with g.as_default(), tf1.device(w(0)):
        x = tf1.placeholder(tf.float32, [batch, width], name="x")
        y = tf.nn.relu(tf.matmul(x, tf.constant(wv)) + tf.constant(bv))
        total = tf.reduce_sum(y, name="total")
    return g, total, {x: xv}, lambda v: abs(v - want) <= 1e-3 * abs(want)


def eight_tasks(tasks):
    """A fed scalar to every task, an AddV2 with a constant there, AddN of
    them all on task 0."""
    g = tf.Graph()
    with g.as_default():
        with tf1.device(w(0)):
            x = tf1.placeholder(tf.float32, [], name="x")
        parts = []
        for t in range(tasks):
            with tf1.device(w(t)):
                parts.append(tf.raw_ops.AddV2(x=x, y=tf.constant(float(t)),
                                              name=f"part_{t}"))
        with tf1.device(w(0)):
            total = tf.math.add_n(parts, name="total")
    want = tasks * 1.0 + sum(range(tasks))
    return g, total, {x: 1.0}, lambda v: v == want


# ---------------------------------------------------------------------------
# Running a case on one side.

def interleaved(steps, warmup, iters, pids=None):
    """Times `steps` (side -> a function running one step and returning
    whether its answer is right) in turns, so that both sides see the same
    machine: the first step of each, `warmup` more, then `iters` timed steps
    each, STEPS_PER_TURN in a row per turn, the side going first
    alternating. With `pids` (side -> its
    servers' pids), also the servers' CPU time per timed step: each side's
    servers only work on that side's steps, and CPU time, unlike latency,
    hardly grows with the machine's load."""
    sides = list(steps)
    pids = pids or {}
    out = {s: {"latencies": [], "wrong": 0} for s in sides}
    for s in sides:
        start = time.perf_counter()
        out[s]["wrong"] += not steps[s]()
        out[s]["first_step_us"] = (time.perf_counter() - start) * 1e6
    for _ in range(warmup):
        for s in sides:
            out[s]["wrong"] += not steps[s]()
    cpu_before = {s: cpu_seconds(pids[s]) for s in pids}
    done = turn = 0
    while done < iters:
        n = min(STEPS_PER_TURN, iters - done)
        for s in (sides if turn % 2 == 0 else sides[::-1]):
            for _ in range(n):
                start = time.perf_counter()
                right = steps[s]()
                out[s]["latencies"].append(time.perf_counter() - start)
                out[s]["wrong"] += not right
        done += n
        turn += 1
    results = {}
    for s in sides:
        results[s] = summary(out[s]["latencies"])
        results[s].update(first_step_us=out[s]["first_step_us"],
                          wrong=int(out[s]["wrong"]))
        if pids.get(s):
            results[s]["server_cpu_us"] = (
                (cpu_seconds(pids[s]) - cpu_before[s]) / iters * 1e6)
    return results


def time_steps(targets, built, optimize, warmup, iters, pids=None):
    """One session per side (side -> target) on the same graph; the steps
    timed in turns (interleaved), every answer checked; with `pids`, the
    servers' CPU per step too."""
    graph, fetch, feeds, check = built
    sessions = {}
    try:
        for s, target in targets.items():
            sessions[s] = tf1.Session(target, graph=graph,
                                      config=session_config(optimize))

        def stepper(sess):
            return lambda: check(sess.run(fetch, feeds, options=RUN_OPTIONS))

        return interleaved({s: stepper(sess) for s, sess in sessions.items()},
                           warmup, iters, pids)
    finally:
        for sess in sessions.values():
            sess.close()


def first_step(targets, built, optimize, repeats):
    """A new session each time: creating it, then its first step (extend,
    place, partition, register, run); sides in turns, `repeats` each."""
    graph, fetch, feeds, check = built
    times = {s: [] for s in targets}
    wrong = {s: 0 for s in targets}
    for i in range(repeats):
        order = list(targets) if i % 2 == 0 else list(targets)[::-1]
        for s in order:
            start = time.perf_counter()
            with tf1.Session(targets[s], graph=graph,
                             config=session_config(optimize)) as sess:
                value = sess.run(fetch, feeds, options=RUN_OPTIONS)
                times[s].append(time.perf_counter() - start)
            wrong[s] += not check(value)
    results = {}
    for s in targets:
        results[s] = summary(times[s])
        results[s].update(wrong=int(wrong[s]))
    return results


def ps_train_step(targets, num_ps, optimize, warmup, iters):
    """One training step of ps_train_vs_tf.py's model (variables on the ps
    tasks, Adagrad, batch 64), sides in turns. A step is right when its loss
    is finite; training must lower the loss on each side."""
    import ps_train_vs_tf as ps  # imports the model of examples/python
    graph, x, ids, y, loss, train, init = ps.build_train_graph(0, num_ps)
    tx, tids, ty = ps.model.dataset(4096, seed=10)
    batch = 64
    sessions, losses = {}, {s: [] for s in targets}
    try:
        for s, target in targets.items():
            sessions[s] = tf1.Session(target, graph=graph,
                                      config=session_config(optimize))
            sessions[s].run(init, options=RUN_OPTIONS)

        def stepper(s):
            sess, i = sessions[s], [0]

            def step():
                lo = (i[0] * batch) % (len(tx) - batch)
                i[0] += 1
                value, _ = sess.run(
                    [loss, train], {x: tx[lo:lo + batch],
                                    ids: tids[lo:lo + batch],
                                    y: ty[lo:lo + batch]},
                    options=RUN_OPTIONS)
                losses[s].append(float(value))
                return bool(np.isfinite(value))
            return step

        results = interleaved({s: stepper(s) for s in targets}, warmup,
                              iters)
    finally:
        for sess in sessions.values():
            sess.close()
    for s in targets:
        first, last = losses[s][0], np.mean(losses[s][-10:])
        results[s].update(first_loss=first, last_loss=float(last))
        results[s]["wrong"] += not last < first
    return results


def load_client(target, optimize, barrier, seconds, queue):
    """One client process of the load case: its own session, a small 2-task
    step (a fed scalar plus a constant of task 1, on task 0), as many steps
    as fit in `seconds` once every client has passed `barrier`."""
    try:
        g = tf.Graph()
        with g.as_default():
            with tf1.device(w(1)):
                c = tf.constant(5.0, name="c")
            with tf1.device(w(0)):
                x = tf1.placeholder(tf.float32, [], name="x")
                y = tf.raw_ops.AddV2(x=x, y=c, name="y")
        latencies, wrong = [], 0
        with tf1.Session(target, graph=g,
                         config=session_config(optimize)) as sess:
            for i in range(5):
                sess.run(y, {x: float(i)}, options=RUN_OPTIONS)
            barrier.wait(timeout=600)
            end = time.time() + seconds
            i = 0
            while time.time() < end:
                start = time.perf_counter()
                v = sess.run(y, {x: float(i)}, options=RUN_OPTIONS)
                latencies.append(time.perf_counter() - start)
                wrong += v != float(i) + 5.0
                i += 1
        queue.put((latencies, int(wrong), None))
    except Exception as e:  # reported by the parent
        barrier.abort()  # the other clients stop waiting
        queue.put(([], 0, f"{type(e).__name__}: {e}"))


def concurrent_load(target, optimize, clients, seconds):
    """`clients` processes, each its own TF client and session, stepping
    for `seconds` at once: total steps/s and the latency of all steps."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    # The clients import TensorFlow and warm up first (seconds each on a
    # busy machine), then start stepping together.
    barrier = ctx.Barrier(clients)
    procs = [ctx.Process(target=load_client,
                         args=(target, optimize, barrier, seconds, queue))
             for _ in range(clients)]
    for p in procs:
        p.start()
    results = []
    try:
        for _ in procs:
            results.append(queue.get(timeout=900 + seconds))
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    errors = [e for _, _, e in results if e]
    if errors:
        raise RuntimeError("load client failed: " + "; ".join(errors))
    late = [lat for lats, _, _ in results for lat in lats]
    if not late:
        raise RuntimeError("the load clients ran no step")
    result = summary(late)
    result.update(steps_per_second=len(late) / seconds,
                  wrong=sum(wr for _, wr, _ in results), clients=clients)
    return result


# ---------------------------------------------------------------------------
# The table.

def fmt_us(us):
    if us < 1e3:
        return f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1e3:.2f} ms"
    return f"{us / 1e6:.2f} s"


def markdown(results):
    lines = [
        "| case | optimizations | TensorFlow | dfx | dfx / TF "
        "| servers' CPU per step, TF / dfx (dfx / TF) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results["cases"]:
        tf_r, dfx_r = r["tf"], r["dfx"]
        if r["metric"] == "steps_per_second":
            t = (f"{tf_r['steps_per_second']:.0f} steps/s, p50 "
                 f"{fmt_us(tf_r['p50_us'])}, p99 {fmt_us(tf_r['p99_us'])}")
            d = (f"{dfx_r['steps_per_second']:.0f} steps/s, p50 "
                 f"{fmt_us(dfx_r['p50_us'])}, p99 {fmt_us(dfx_r['p99_us'])}")
            ratio = (f"{r['ratio']:.2f}× throughput, "
                     f"p99 {r['p99_ratio']:.2f}")
        else:
            t, d = fmt_us(tf_r["p50_us"]), fmt_us(dfx_r["p50_us"])
            ratio = f"{r['ratio']:.2f}"
        wrong = tf_r.get("wrong", 0) + dfx_r.get("wrong", 0)
        if wrong:
            ratio += f" (**{tf_r['wrong']} wrong on TF, {dfx_r['wrong']} " \
                     f"on dfx**)"
        cpu = "–"
        if "server_cpu_us" in tf_r and "server_cpu_us" in dfx_r:
            t_cpu, d_cpu = tf_r["server_cpu_us"], dfx_r["server_cpu_us"]
            cpu = f"{fmt_us(t_cpu)} / {fmt_us(d_cpu)}"
            if t_cpu > 0:
                cpu += f" ({d_cpu / t_cpu:.2f})"
        lines.append(f"| {r['case']} | {r['config']} | {t} | {d} | "
                     f"{ratio} | {cpu} |")
    return "\n".join(lines) + "\n"


def add_result(results, case, config, metric, tf_r, dfx_r):
    if metric == "steps_per_second":
        ratio = dfx_r["steps_per_second"] / tf_r["steps_per_second"]
    else:
        ratio = dfx_r["p50_us"] / tf_r["p50_us"]
    entry = {"case": case, "config": config, "metric": metric, "tf": tf_r,
             "dfx": dfx_r, "ratio": ratio}
    if metric == "steps_per_second":
        entry["p99_ratio"] = dfx_r["p99_us"] / tf_r["p99_us"]
    results["cases"].append(entry)
    cpu = ""
    if "server_cpu_us" in tf_r and "server_cpu_us" in dfx_r:
        cpu = (f"; servers' CPU per step TF {tf_r['server_cpu_us']:.0f} µs, "
               f"dfx {dfx_r['server_cpu_us']:.0f} µs")
    print(f"  {case} [{config}]: TF {tf_r['p50_us']:.0f} µs, dfx "
          f"{dfx_r['p50_us']:.0f} µs p50; ratio {ratio:.2f}{cpu}",
          flush=True)


CONFIGS = (("defaults", True), ("off", False))


def cxx_client_steps(dfx, targets, built, feed_flags, optimize, iters,
                     rounds=3):
    """The same graph timed by dfx's own C++ client (`dfx bench --json`)
    against each side's servers, the sides alternating for `rounds` rounds;
    each side's best round (p50). The Python client costs both sides some
    400 µs a step, which hides the servers' own difference; this client
    costs about as much as one gRPC round trip."""
    graph, fetch, _, _ = built
    with tempfile.NamedTemporaryFile(suffix=".pb", delete=False) as f:
        f.write(graph.as_graph_def().SerializeToString())
        path = f.name
    try:
        best = {}
        for r in range(rounds):
            for s in (list(targets) if r % 2 == 0 else list(targets)[::-1]):
                cmd = [dfx, "bench", "--target", targets[s], "--graph", path,
                       "--fetch", fetch.name, "--iters", str(iters),
                       "--warmup", str(max(3, iters // 10)), "--json",
                       "--timeout-ms", str(STEP_TIMEOUT_MS)] + feed_flags
                if not optimize:
                    cmd.append("--no-optimize")
                out = subprocess.run(cmd, capture_output=True, text=True,
                                     timeout=600)
                if out.returncode != 0 and s == "tf":
                    # TensorFlow's master gives each RunGraph a random
                    # request id and its worker refuses one it has seen:
                    # once, in a CI run, its worker refused its own
                    # master's RunGraph ("The same RunGraph (Worker)
                    # request was received twice") and the round failed
                    # inside TensorFlow. Its side gets one more try; dfx's
                    # side gets none, so dfx's own failures show.
                    print(f"  TensorFlow's side failed, trying once more: "
                          f"{out.stderr.strip()[:300]}", flush=True)
                    out = subprocess.run(cmd, capture_output=True,
                                         text=True, timeout=600)
                if out.returncode != 0:
                    raise RuntimeError(f"dfx bench against {s} failed: "
                                       f"{out.stderr.strip()}")
                lat = json.loads(out.stdout)["latency_us"]
                p50 = lat["p50"]
                if s not in best or p50 < best[s]["p50_us"]:
                    best[s] = {"p50_us": p50, "p99_us": lat["p99"]}
        return best
    finally:
        os.unlink(path)


def run_cases(args, results):
    quick = args.quick
    only = [w.strip().lower() for w in args.only.split("|") if w.strip()]

    def wanted(name):
        return not only or any(w in name.lower() for w in only)
    chain_n = 1000 if quick else 10000
    steady = [("null step", null_step(), 200, 20),
              (f"chain of {chain_n:,} AddV2", add_chain(chain_n),
               20 if not quick else 10, 3)]
    if not quick:
        steady.append(("fan-out of 10,000 AddV2", fan_out(10000), 20, 3))
    mibs = [1] if quick else [1, 64] + ([512] if args.with_512mib else [])
    for mib in mibs:
        iters = 30 if mib == 1 else (8 if mib == 64 else 3)
        steady.append((f"RecvTensor {mib} MiB", recv_tensor(mib),
                       iters if not quick else 10, 2 if mib > 1 else 5))
    if not quick:
        steady.append(("MatMul layer 64×1024 · 1024×1024", matmul_layer(),
                       50, 5))
    steady = [case for case in steady if wanted(case[0])]
    chain_cxx = f"chain of {chain_n:,} AddV2, dfx's C++ client"
    cxx_wanted = [wanted("null step, dfx's C++ client"), wanted(chain_cxx)]
    first_steps = [n for n in [10000] + ([100000] if args.with_100k else [])
                   if wanted(f"first step, {n:,}-node chain")]
    load_name = (f"concurrent load, {args.clients} client processes, "
                 f"{args.load_seconds:g} s")
    two_tasks = (steady or any(cxx_wanted) or
                 (not quick and (first_steps or wanted(load_name))))
    if two_tasks:
        run_two_task_cases(args, results, steady, chain_n, cxx_wanted,
                           first_steps if not quick else [],
                           load_name if not quick and wanted(load_name)
                           else None)
    ps_name = "PS training step (1 worker, 2 ps)"
    if not quick and wanted(ps_name):
        run_ps_case(args, results, ps_name)
    if args.with_8_tasks and wanted("a step touching 8 tasks"):
        run_eight_task_case(args, results)


def on_clusters(args, workers, ps, body):
    """Starts a TensorFlow and a dfx cluster of `workers` workers and `ps`
    ps tasks, calls body(targets, pids) (each a dict keyed "tf" and "dfx":
    the master target, the servers' pids) and stops both clusters."""
    print(f"starting a TensorFlow and a dfx cluster ({workers} workers, "
          f"{ps} ps)", flush=True)
    tf_cluster, tf_stop = start_tf_cluster(workers, ps)
    try:
        dfx_cluster, dfx_stop = start_dfx_cluster(args.dfx, workers, ps)
    except BaseException:
        tf_stop()
        raise
    try:
        body({"tf": f"grpc://{tf_cluster['worker'][0]}",
              "dfx": f"grpc://{dfx_cluster['worker'][0]}"},
             {"tf": server_pids(tf_cluster),
              "dfx": server_pids(dfx_cluster)})
    finally:
        tf_stop()
        dfx_stop()


def run_two_task_cases(args, results, steady, chain_n, cxx_wanted,
                       first_steps, load_name):
    scale = args.iters_scale

    def body(targets, pids):
        for name, built, iters, warmup in steady:
            for config, optimize in CONFIGS:
                side = time_steps(targets, built, optimize, warmup,
                                  max(1, int(iters * scale)), pids)
                add_result(results, name, config, "p50_us", side["tf"],
                           side["dfx"])
        cxx_cases = [("null step", null_step(), [], 1000),
                     (f"chain of {chain_n:,} AddV2", add_chain(chain_n),
                      ["--feed", "x=3"], 100)]
        cxx_cases = [c for c, w in zip(cxx_cases, cxx_wanted) if w]
        for name, built, feed_flags, iters in cxx_cases:
            for config, optimize in CONFIGS:
                side = cxx_client_steps(args.dfx, targets, built, feed_flags,
                                        optimize,
                                        max(10, int(iters * scale)))
                add_result(results, f"{name}, dfx's C++ client", config,
                           "p50_us", side["tf"], side["dfx"])
        for n in first_steps:
            built = add_chain(n)
            for config, optimize in CONFIGS:
                side = first_step(targets, built, optimize,
                                  args.first_step_repeats)
                add_result(results, f"first step, {n:,}-node chain",
                           config, "p50_us", side["tf"], side["dfx"])
        if load_name is not None:
            for config, optimize in CONFIGS:
                side = {s: concurrent_load(targets[s], optimize,
                                           args.clients, args.load_seconds)
                        for s in ("tf", "dfx")}
                add_result(results, load_name, config,
                           "steps_per_second", side["tf"], side["dfx"])

    on_clusters(args, 2, 0, body)


def run_ps_case(args, results, ps_name):
    def body(targets, pids):
        for config, optimize in CONFIGS:
            side = ps_train_step(targets, 2, optimize, 5,
                                 max(1, int(50 * args.iters_scale)))
            add_result(results, ps_name, config, "p50_us", side["tf"],
                       side["dfx"])

    on_clusters(args, 1, 2, body)


def run_eight_task_case(args, results):
    def body(targets, pids):
        built = eight_tasks(8)
        for config, optimize in CONFIGS:
            side = time_steps(targets, built, optimize, 5,
                              max(1, int(50 * args.iters_scale)), pids)
            add_result(results, "a step touching 8 tasks", config,
                       "p50_us", side["tf"], side["dfx"])

    on_clusters(args, 8, 0, body)


def dfx_version(dfx):
    try:
        out = subprocess.run([dfx, "version", "--json"], capture_output=True,
                             text=True, timeout=60).stdout
        return json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return {"error": str(e)}


def main():
    p = argparse.ArgumentParser(
        prog="tools/bench/compare_tf",
        description="dfx against TensorFlow 2.21 from the same TF client.")
    p.add_argument("--dfx", default=os.path.join(REPO, "build", "bin", "dfx"),
                   help="the dfx binary (default: build/bin/dfx)")
    p.add_argument("--out", default=".",
                   help="folder for bench-results.json and .md (default .)")
    p.add_argument("--quick", action="store_true",
                   help="a small subset (null step, 1,000-node chain, "
                        "1 MiB RecvTensor), for a smoke test")
    p.add_argument("--with-512mib", action="store_true",
                   help="add the 512 MiB RecvTensor case (about 2 GiB of "
                        "memory at its peak on each side)")
    p.add_argument("--with-100k", action="store_true",
                   help="add the first step of a 100,000-node chain (some "
                        "20 s a step on TensorFlow's side)")
    p.add_argument("--with-8-tasks", action="store_true",
                   help="add a step touching 8 tasks (8 more servers a side)")
    p.add_argument("--clients", type=int, default=8,
                   help="client processes of the load case (default 8)")
    p.add_argument("--load-seconds", type=float, default=10,
                   help="how long the load case runs (default 10)")
    p.add_argument("--first-step-repeats", type=int, default=3)
    p.add_argument("--iters-scale", type=float, default=1.0,
                   help="scale every case's timed steps (default 1)")
    p.add_argument("--steps-per-turn", type=int, default=1,
                   help="timed steps a side runs in a row before the "
                        "other's turn (default 1: the sides alternate "
                        "step by step, each step following one of the "
                        "other side's; more: back-to-back steps, as a "
                        "training loop runs them)")
    p.add_argument("--only", default="",
                   help="words separated by '|': run only the cases whose "
                        "name contains one of them (case-insensitive), "
                        "e.g. --with-512mib --only '512 MiB|8 tasks'")
    args = p.parse_args()
    if not os.access(args.dfx, os.X_OK):
        p.error(f"--dfx {args.dfx}: no such executable (build it with "
                f"tools/build dfx)")
    if (args.clients < 1 or args.load_seconds <= 0 or args.iters_scale <= 0
            or args.steps_per_turn < 1):
        p.error("--clients, --load-seconds, --iters-scale and "
                "--steps-per-turn must be positive")
    global STEPS_PER_TURN
    STEPS_PER_TURN = args.steps_per_turn
    os.makedirs(args.out, exist_ok=True)

    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "command": " ".join(["tools/bench/compare_tf"] + sys.argv[1:]),
        "tensorflow": tf.__version__,
        "dfx": dfx_version(args.dfx),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_at_start": os.getloadavg()},
        "quick": args.quick,
        "cases": [],
    }
    run_cases(args, results)
    results["machine"]["load_average_at_end"] = os.getloadavg()

    table = markdown(results)
    with open(os.path.join(args.out, "bench-results.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    load = results["machine"]
    note = (f"{results['date']}, `{results['command']}`, TensorFlow "
            f"{results['tensorflow']}, {load['cpus']} CPUs, load average "
            f"{load['load_average_at_start'][0]:.1f} at the start and "
            f"{load['load_average_at_end'][0]:.1f} at the end. Times are "
            f"medians (p50) of a step from the TF client; dfx / TF below 1 "
            f"means dfx is faster (for throughput, above 1).\n")
    with open(os.path.join(args.out, "bench-results.md"), "w") as f:
        f.write(note + "\n" + table)
    print()
    print(note)
    print(table)
    wrong = sum(r["tf"].get("wrong", 0) + r["dfx"].get("wrong", 0)
                for r in results["cases"])
    if wrong:
        print(f"compare_tf: {wrong} wrong answers (see the table)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
