#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fault injection for `of-run --nproc-per-node` (launcher.test).

    launcher_faults.py OF_RUN MODEL SCENARIO [FLAG...]

Starts a 2-rank training job of MODEL, waits until it trains, does what
SCENARIO says (interrupt, interrupt-twice, kill-launcher, stop-rank,
kill-rank) and prints what happened: the exit status, whether it ended in
time, what is left (ranks, the store directory) and the launcher's errors.
"""
import os
import signal
import subprocess
import sys
import time


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def ranks_of(launcher):
    """The launcher's ranks by OF_RANK, and the store directory."""
    ranks, store = {}, None
    for pid in children(launcher):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        except OSError:
            continue
        if b"OF_RANK" in env:
            ranks[int(env[b"OF_RANK"])] = pid
            store = env[b"OF_STORE_DIR"].decode()
    return ranks, store


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    of_run, model, scenario = sys.argv[1:4]
    # A short timeout where a rank is meant to stop answering; a long one
    # elsewhere, so that a loaded machine (tests run side by side) is no
    # failure.
    timeout = "2000" if scenario == "stop-rank" else "30000"
    args = [of_run, model, "--train", "--nproc-per-node", "2",
            "--steps", "100000000", "--progress", "off", "--log-every", "1",
            "--timeout-ms", timeout] + sys.argv[4:]
    job = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    # Training: rank 0 logs its steps.
    line = job.stderr.readline()
    while line and not line.startswith("step "):
        line = job.stderr.readline()
    ranks, store = ranks_of(job.pid)
    print(f"ranks {sorted(ranks)} started, store {'exists' if store and os.path.isdir(store) else 'missing'}")
    start = time.monotonic()
    if scenario == "interrupt":
        job.send_signal(signal.SIGINT)
    elif scenario == "interrupt-twice":
        # Rank 1 stopped holds up the agreed stop, so the second Ctrl-C
        # finds rank 0 still stopping (signals are apart, as a person
        # presses twice; sent at once they coalesce).
        os.kill(ranks[1], signal.SIGSTOP)
        job.send_signal(signal.SIGINT)
        time.sleep(0.3)
        job.send_signal(signal.SIGINT)
        time.sleep(0.2)
        os.kill(ranks[1], signal.SIGCONT)
    elif scenario == "kill-launcher":
        job.kill()
    elif scenario == "stop-rank":
        os.kill(ranks[1], signal.SIGSTOP)
    elif scenario == "kill-rank":
        os.kill(ranks[1], signal.SIGKILL)
    errors = [l.rstrip() for l in job.stderr if "error" in l or "interrupted" in l]
    code = job.wait()
    seconds = time.monotonic() - start
    # What dies with the launcher dies within moments.
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and (
            any(alive(p) for p in ranks.values()) or (store and os.path.isdir(store))):
        time.sleep(0.05)
    print(f"exit {code}")
    for limit in (2, 20):
        print(f"ended within {limit} s: {'yes' if seconds <= limit else 'no'}")
    print(f"ranks left: {sum(alive(p) for p in ranks.values())}")
    print(f"store left: {'yes' if store and os.path.isdir(store) else 'no'}")
    for error in errors:
        print(error)


if __name__ == "__main__":
    main()
