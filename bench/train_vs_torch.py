#!/usr/bin/python3
"""Training-step throughput and memory of of-run against PyTorch, same
machine, same threads, same global batch.

A step is forward, backward and an optimizer update (SGD, lr 0.1, or
Adam). Ours: the model's oneflow program through `of-opt` (oneflow-autodiff,
oneflow-optimizer, then oneflow-default-pipeline), exported as a plan and
run by of-run, whose steady-state ms/step (steps 1 to N) is the figure.
PyTorch: the same network in eager mode, `zero_grad`, loss, `backward`,
`step`, the median of N steps after one warm-up step. The ratio is PyTorch
time / our time (above 1.0: we are faster).

Configurations (--ranks):
  1  one process each side, --threads threads
  2  data parallel on 2 processes each side, --threads threads per rank,
     each rank half the batch: of-run ranks meeting in a store directory
     (the batch split S(0), the gradients all-reduced by Gloo) against
     torch.nn.parallel.DistributedDataParallel on the gloo backend

Memory, per rank: the maximum resident set size of every process (rank),
from /usr/bin/time (Debian's `time` package); for ours also the plan's arena bytes (oneflow-plan-memory: every
tensor of the step, parameters and optimizer states included); for PyTorch
also the growth of its resident set over the training loop (after
`import torch`, the model and the inputs are in memory).

Each process is started fresh for every measurement; each side keeps its
best of --rounds interleaved rounds.

Models are in bench/train_models.py (--model; --list shows them).

Usage: bench/train_vs_torch.py [--model mlp] [--ranks 1] [--threads 2]
                               [--steps 20] [--rounds 3] [--optimizer sgd]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Before torch (train_models imports it): it may choose the peer's OpenBLAS
# kernels.
import torch_threads  # noqa: E402
import train_models  # noqa: E402


def run_checked(args, what):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("%s failed (%s):\n%s%s" % (what, " ".join(args), done.stdout,
                                            done.stderr))
    return done.stdout


def measured(args, rss_file):
    """`args` under /usr/bin/time, which writes the maximum resident set
    (KiB) of the process to `rss_file`. (A child's own ru_maxrss would
    count the memory of this Python process, which forked it: Linux keeps
    the high-water mark across exec.)"""
    return ["/usr/bin/time", "-f", "%M", "-o", rss_file] + args


def wait_rss(process, rss_file, what):
    """Waits for `process`; returns its maximum resident set in bytes."""
    if process.wait() != 0:
        sys.exit("%s exited with %d" % (what, process.returncode))
    with open(rss_file) as f:
        return int(f.read().split()[-1]) * 1024


# ---------------------------------------------------------------- ours ----

class Ours:
    def __init__(self, build, model, ranks, optimizer, tmp):
        self.of_run = os.path.join(build, "bin", "of-run")
        self.model, self.ranks, self.tmp = model, ranks, tmp
        layouts = {}
        placement = "#oneflow.placement<cpu, ranks = [%s]>" % ", ".join(
            str(r) for r in range(ranks))
        for i in model.inputs:
            layouts[i.name] = (", #oneflow.global<%s, [S(0)]>" % placement
                               if ranks > 1 else "")
        source = os.path.join(tmp, "model.mlir")
        with open(source, "w") as f:
            f.write(model.program(layouts))
        of_opt = os.path.join(build, "bin", "of-opt")
        train = os.path.join(tmp, "train.mlir")
        update = ("kind=adam lr=0.001" if optimizer == "adam"
                  else "kind=sgd lr=0.1")
        run_checked([of_opt, source, "-pass-pipeline=builtin.module(func.func("
                     "oneflow-autodiff{loss=loss},oneflow-optimizer{%s}))"
                     % update, "-o", train], "of-opt (training step)")
        planned = os.path.join(tmp, "plan.mlir")
        run_checked([of_opt, train, "--oneflow-default-pipeline", "-o",
                     planned], "of-opt (default pipeline)")
        with open(planned) as f:
            arenas = [int(v) for v in re.findall(r"rank_plan rank \d+ .*arena (\d+)",
                                                 f.read())]
        if len(arenas) != ranks:
            sys.exit("expected %d rank plans with arena_bytes in %s"
                     % (ranks, planned))
        self.arena = max(arenas)
        self.plan = os.path.join(tmp, "model.plan")
        run_checked([os.path.join(build, "bin", "of-translate"), planned,
                     "--export-plan", "-o", self.plan], "of-translate")

    def measure(self, threads, steps):
        """(steady-state ms/step, max RSS of each rank)."""
        store = tempfile.mkdtemp(dir=self.tmp)
        processes, logs = [], []
        for rank in range(self.ranks):
            env = dict(os.environ)
            if self.ranks > 1:
                env.update(OF_RANK=str(rank), OF_WORLD_SIZE=str(self.ranks),
                           OF_STORE_DIR=store)
            log = open(os.path.join(store, "rank%d.log" % rank), "w+")
            args = [self.of_run, self.plan, "--steps", str(steps + 1),
                    "--threads", str(threads), "--print_limit", "0",
                    "--progress", "off"]
            for i in self.model.inputs:
                args += ["--input", i.of_run_source()]
            rss_file = os.path.join(store, "rank%d.rss" % rank)
            processes.append((subprocess.Popen(
                measured(args, rss_file), stdout=log,
                stderr=subprocess.STDOUT, env=env), rss_file))
            logs.append(log)
        rss = [wait_rss(p, f, "of-run rank %d" % r)
               for r, (p, f) in enumerate(processes)]
        logs[0].seek(0)
        out = logs[0].read()
        for log in logs:
            log.close()
        match = re.search(r"steady state \(steps [0-9-]+\): ([0-9.]+) "
                          r"ms/step", out)
        if not match:
            sys.exit("of-run printed no steady-state time:\n" + out)
        return float(match.group(1)), rss


# ------------------------------------------------------------- PyTorch ----

def torch_child(spec):
    """One PyTorch rank; prints a JSON line (rank 0's time, every rank's
    memory)."""
    import torch
    import torch.distributed as dist
    torch_threads.set_threads(spec["threads"])
    torch.manual_seed(spec["rank"])
    model = train_models.MODELS[spec["model"]]()
    world, rank = spec["world"], spec["rank"]
    rows = model.inputs[0].shape[0] // world
    module = model.torch_module()
    values = [i.torch_value(rows) for i in model.inputs]
    if world > 1:
        dist.init_process_group("gloo", init_method=spec["init"], rank=rank,
                                world_size=world)
        module = torch.nn.parallel.DistributedDataParallel(module)
    optimizer = (torch.optim.Adam(module.parameters(), lr=0.001)
                 if spec["optimizer"] == "adam"
                 else torch.optim.SGD(module.parameters(), lr=0.1))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    times = []
    for step in range(spec["steps"] + 1):
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = module(*values)
        loss.backward()
        optimizer.step()
        if step > 0:  # step 0 warms up, like of-run's
            times.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    times.sort()
    print(json.dumps({"ms": 1e3 * times[len(times) // 2],
                      "growth": after - before, "loss": loss.item()}))
    if world > 1:
        dist.destroy_process_group()


def torch_measure(model, ranks, threads, steps, optimizer, tmp):
    init = "file://" + tempfile.mktemp(dir=tmp)
    processes = []
    for rank in range(ranks):
        spec = dict(model=model, world=ranks, rank=rank, threads=threads,
                    steps=steps, optimizer=optimizer, init=init)
        rss_file = tempfile.mktemp(dir=tmp)
        processes.append((subprocess.Popen(
            measured([sys.executable, os.path.abspath(__file__),
                      "--torch-child", json.dumps(spec)], rss_file),
            stdout=subprocess.PIPE, text=True), rss_file))
    outputs = [p.stdout.read() for p, _ in processes]
    rss = [wait_rss(p, f, "PyTorch rank %d" % r)
           for r, (p, f) in enumerate(processes)]
    reports = [json.loads(o.strip().splitlines()[-1]) for o in outputs]
    return reports[0]["ms"], rss, [r["growth"] for r in reports]


# ---------------------------------------------------------------- main ----

def mib(n):
    return "%.1f" % (n / 2**20)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--ranks", type=int, default=1, choices=[1, 2])
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="threads per rank")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--optimizer", default="sgd", choices=["sgd", "adam"])
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--torch-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        return torch_child(json.loads(args.torch_child))
    if args.list:
        for name, make in train_models.MODELS.items():
            print("%-12s %s" % (name, make().description))
        return
    if args.model not in train_models.MODELS:
        sys.exit("unknown model '%s'; --list shows them" % args.model)
    model = train_models.MODELS[args.model]()
    if model.inputs[0].shape[0] % args.ranks:
        sys.exit("the batch of %s does not split over %d ranks"
                 % (args.model, args.ranks))
    import torch
    print("model: %s (%s)\nranks: %d, threads per rank: %d, steps: %d, "
          "optimizer: %s, torch %s" % (args.model, model.description,
                                       args.ranks, args.threads, args.steps,
                                       args.optimizer, torch.__version__))
    with tempfile.TemporaryDirectory() as tmp:
        ours = Ours(args.build, model, args.ranks, args.optimizer, tmp)
        our_ms, their_ms, our_rss, their_rss = [], [], [], []
        for _ in range(args.rounds):
            ms, rss = ours.measure(args.threads, args.steps)
            our_ms.append(ms)
            our_rss.append(max(rss))
            ms, rss, growth = torch_measure(args.model, args.ranks,
                                            args.threads, args.steps,
                                            args.optimizer, tmp)
            their_ms.append(ms)
            their_rss.append(max(rss))
        print("%-10s %12s %12s %10s" % ("", "of-run ms", "torch ms", "ratio"))
        print("%-10s %12.3f %12.3f %9.2fx" % (
            "step", min(our_ms), min(their_ms), min(their_ms) / min(our_ms)))
        print("rounds: of-run %s; torch %s" % (
            " ".join("%.2f" % m for m in our_ms),
            " ".join("%.2f" % m for m in their_ms)))
        print("ratio = torch time / of-run time; goal at least 1.0")
        print("memory per rank (MiB): of-run max RSS %s (plan arena %s); "
              "torch max RSS %s (growth in the training loop %s)" % (
                  mib(min(our_rss)), mib(ours.arena), mib(min(their_rss)),
                  mib(max(growth))))


if __name__ == "__main__":
    main()
