"""A live process's threads as GDB shows them when attached in batch mode: ``thread apply
all bt`` (a header per thread, ``Thread N (Thread 0x... (LWP n) "name")``, then its
frames with arguments and source lines), ``thread apply all bt full`` (each frame's locals
too) and ``info threads`` (one row per thread: id, target id with name, current frame), of
a small C service the capture writes and compiles (``gcc -g -O0 -pthread``).

Fourteen threads under neutral names (``svc-a`` ... ``svc-n``), shuffled over roles: most
wait on one condition variable for work; one sleeps, one blocks reading a pipe, one waits
in ``accept`` on a loopback socket, two hold one mutex each and wait for the other's (a real
deadlock), one is deep in a recursive walk, one spins on the CPU. Facts come from the
capture's record of which role each name was given and from ``/proc/<pid>/task/<tid>/comm``
read by the capture (another reader than GDB), never from GDB's text: the answer is a
thread's name. Held out (issue 33, seventh round): no dev source holds debugger backtraces.
"""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "gdb_threads"
PROGRAM = r'''
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct job { int id; char payload[48]; };
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;
static int pending = 0, pipe_fds[2], listener;
static volatile unsigned long spins;

static void *pool_worker(void *arg) {
    struct job current = { .id = (int)(long)arg };
    pthread_mutex_lock(&queue_lock);
    while (pending == 0)
        pthread_cond_wait(&queue_ready, &queue_lock);
    pthread_mutex_unlock(&queue_lock);
    return NULL + current.id;
}
static void *housekeeper(void *arg) { for (;;) sleep(600); return arg; }
static void *pipe_reader(void *arg) {
    char buf[256];
    ssize_t got = read(pipe_fds[0], buf, sizeof buf);
    return arg + got;
}
static void *acceptor(void *arg) {
    int conn = accept(listener, NULL, NULL);
    return arg + conn;
}
static void post_to_audit(int entry) {
    pthread_mutex_lock(&audit_lock);
    pthread_mutex_unlock(&audit_lock);
    (void)entry;
}
static void *ledger_writer(void *arg) {
    pthread_mutex_lock(&ledger_lock);
    usleep(200000);
    post_to_audit(7);
    pthread_mutex_unlock(&ledger_lock);
    return arg;
}
static void post_to_ledger(int entry) {
    pthread_mutex_lock(&ledger_lock);
    pthread_mutex_unlock(&ledger_lock);
    (void)entry;
}
static void *audit_flusher(void *arg) {
    pthread_mutex_lock(&audit_lock);
    usleep(200000);
    post_to_ledger(11);
    pthread_mutex_unlock(&audit_lock);
    return arg;
}
static unsigned long walk_tree(int depth, unsigned long acc) {
    if (depth == 0) { for (;;) sleep(600); }
    return walk_tree(depth - 1, acc * 31 + depth) + 1;
}
static void *tree_walker(void *arg) { return (void *)walk_tree(23, 1); }
static void *spinner(void *arg) { for (;;) spins++; return arg; }

int main(int argc, char **argv) {
    void *(*roles[])(void *) = { pool_worker, housekeeper, pipe_reader, acceptor, ledger_writer,
                                 audit_flusher, tree_walker, spinner };
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    pthread_t threads[32];
    int n = 0;
    if (pipe(pipe_fds) != 0) return 1;
    listener = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 4) != 0) return 1;
    /* argv: pairs of (role index, thread name) */
    for (int i = 1; i + 1 < argc; i += 2, n++) {
        pthread_create(&threads[n], NULL, roles[atoi(argv[i])], (void *)(long)n);
        pthread_setname_np(threads[n], argv[i + 1]);
    }
    printf("%d\n", getpid());
    fflush(stdout);
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    return 0;
}
'''
ROLES = ("pool", "sleeper", "pipe", "accept", "ledger", "audit", "walker", "spinner")
POOL = 7  # how many threads wait on the queue
# ``info threads`` shows the innermost frame only: the walker's bottom sleeps like the sleeper
BACKTRACES = ("bt", "bt_full")


def assign() -> dict[str, str]:
    """Thread name -> role: neutral names, roles shuffled (the capture's record)."""
    rng = random.Random(3370)
    roles = ["pool"] * POOL + [r for r in ROLES if r != "pool"]
    rng.shuffle(roles)
    return {f"svc-{chr(ord('a') + i)}": role for i, role in enumerate(roles)}


def task_names(pid: int) -> dict[str, int]:
    """Thread name -> LWP id, from ``/proc/<pid>/task/<tid>/comm``."""
    tasks = Path(f"/proc/{pid}/task")
    return {(t / "comm").read_text().strip(): int(t.name) for t in tasks.iterdir()}


def build(work: Path) -> list[dict[str, Any]]:
    (work / "svc.c").write_text(PROGRAM)
    binary = work / "ledgerd"
    run(["gcc", "-g", "-O0", "-pthread", "-o", str(binary), str(work / "svc.c")])
    names = assign()
    argv = [str(binary)]
    for name, role in names.items():
        argv += [str(ROLES.index(role)), name]
    proc = subprocess.Popen(argv, cwd=work, stdout=subprocess.PIPE, text=True)
    try:
        pid = int(proc.stdout.readline())
        time.sleep(1.0)  # the two lockers meet, the walker reaches its bottom
        lwp = task_names(pid)
        assert set(names) <= set(lwp), lwp
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(work)}
        texts = {}
        for key, cmd in (("bt", "thread apply all bt"), ("bt_full", "thread apply all bt full"),
                         ("info", "info threads")):
            texts[key] = run(["gdb", "-q", "-nx", "-batch", "-p", str(pid), "-ex", cmd], env=env, cwd=work,
                             timeout=120).stdout
    finally:
        proc.kill()
        proc.wait(timeout=30)
    texts = {k: t.replace(str(work), "/opt/ledgerd") for k, t in texts.items()}
    by_role: dict[str, list[str]] = {}
    for name, role in names.items():
        by_role.setdefault(role, []).append(name)

    def role(r: str) -> tuple[str, ...]:
        return tuple(by_role[r])

    asks = [
        Ask("deadlocked", "named", "named_item", role("ledger") + role("audit"),
            "the capture's record: the two threads given the crossed-lock roles",
            ("Which threads are deadlocked?", "Which two threads are each waiting for a lock the other holds?")),
        Ask("pipe_reader", "named", "named_item", role("pipe"), "the capture's record: the thread reading a pipe",
            ("Which thread is blocked reading from a pipe?", "Which thread is stuck in read()?")),
        Ask("acceptor", "named", "named_item", role("accept"), "the capture's record: the thread in accept",
            ("Which thread is waiting for incoming connections?", "Which thread sits in accept()?")),
        Ask("deepest", "extreme", "extreme", role("walker"), "the capture's record: the recursive walker",
            ("Which thread has the deepest stack?", "Which thread has the most frames on its stack?"),
            only=BACKTRACES),
        Ask("sleeper", "named", "named_item", role("sleeper"), "the capture's record: the thread that sleeps",
            ("Which thread is just sleeping?", "Which thread is parked in a sleep call?"), only=BACKTRACES),
        Ask("busy", "named", "named_item", role("spinner"), "the capture's record: the thread spinning",
            ("Which thread is running on the CPU rather than waiting?", "Which thread is busy, not blocked?")),
    ]
    # an LWP number asked of its name: the number from /proc, the name as the answer
    for name in (role("pool")[2], role("sleeper")[0]):
        asks.append(Ask(f"lwp_{name}", "named", "named_item", (name,), "/proc/<pid>/task/<tid>/comm of that LWP",
                        (f"Which thread is LWP {lwp[name]}?", f"What is the name of the thread with LWP {lwp[name]}?")))
    outputs = {
        "bt": Output({"command": "gdb -q -batch -p $(pidof ledgerd) -ex 'thread apply all bt'"}, "text", texts["bt"]),
        "bt_full": Output({"command": "gdb -q -batch -p $(pidof ledgerd) -ex 'thread apply all bt full'"}, "text",
                          texts["bt_full"]),
        "info": Output({"command": "gdb -q -batch -p $(pidof ledgerd) -ex 'info threads'"}, "text", texts["info"]),
    }
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 15, f"too few {SOURCE} cases: {len(out)}"
    return out
