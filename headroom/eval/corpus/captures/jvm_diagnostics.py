"""A running JVM's diagnostics as the JDK's own tools print them: thread dumps
(``jstack -l <pid>``, with each thread's locked ownable synchronizers, and
``jcmd <pid> Thread.print``) and live-object class histograms (``jcmd <pid>
GC.class_histogram`` and ``jmap -histo:live <pid>``) of a small Java program the capture
starts (OpenJDK 17, run from source with ``java Workload.java``).

The program holds a pool of twelve workers parked on an empty queue, five sleeping
tickers, one thread holding a monitor while it sleeps and one blocked on that monitor, a
real two-thread monitor deadlock (the dump ends with ``Found one Java-level deadlock``),
one thread in ``Object.wait()`` on an application object, one blocked in
``ServerSocket.accept()``, one at a raised priority, beside the JVM's own threads; and it
keeps fixed numbers of instances of three of its own classes among the ~900 classes the
histogram lists.

Facts come from another reader of the same JVM: the program's own
``ThreadMXBean.getThreadInfo`` view (each thread's state, the lock it waits for and that
lock's owner, its priority, its top stack frame), written to a file before the tools run,
and the instance counts the program itself keeps; never from the tools' text. A fact is
kept only where its text occurs once in the output (a deadlocked thread's name stands
three times in a dump, so the deadlock is never asked by name). Held out (issue 33, fourth
round): no dev source holds a thread dump or a heap histogram.
"""

from __future__ import annotations

import json
import shutil
import string
import subprocess
import time
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "jvm_diagnostics"
# Instance counts the program keeps of its own classes (odd sizes, so the number is likely
# to stand once among the histogram's columns; a count that does not is not asked).
KEPT = {"ShipmentRecord": 24683, "CustomerProfile": 3187, "TariffTable": 461}

WORKLOAD = string.Template(r'''
import java.io.*;
import java.lang.management.*;
import java.net.*;
import java.util.*;
import java.util.concurrent.*;

public class Workload {
    static final Object CATALOG_LOCK = new Object(), LEDGER = new Object(), JOURNAL = new Object(),
        SHUTDOWN = new Object();
    static final List<Object> KEEP = new ArrayList<>();
    static final List<String> MINE = new ArrayList<>();

    static Thread start(String name, int prio, Runnable r) {
        Thread t = new Thread(r, name);
        t.setPriority(prio);
        t.setDaemon(true);
        MINE.add(name);
        t.start();
        return t;
    }

    static void sleepForever() {
        try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
    }

    static String q(String s) { return s == null ? "null" : "\"" + s.replace("\"", "'") + "\""; }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < ${ShipmentRecord}; i++) KEEP.add(new ShipmentRecord(i, i % 17));
        for (int i = 0; i < ${CustomerProfile}; i++) KEEP.add(new CustomerProfile("c" + i));
        for (int i = 0; i < ${TariffTable}; i++) KEEP.add(new TariffTable());
        BlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        ExecutorService pool = new ThreadPoolExecutor(12, 12, 0, TimeUnit.SECONDS, queue, new ThreadFactory() {
            int n = 0;
            public Thread newThread(Runnable r) {
                String name = "ingest-worker-" + (n++);
                MINE.add(name);
                return new Thread(r, name);
            }
        });
        for (int i = 0; i < 12; i++) pool.submit(() -> { });
        for (int i = 0; i < 5; i++) start("metrics-tick-" + i, 5, Workload::sleepForever);
        CountDownLatch held = new CountDownLatch(1);
        start("catalog-refresher", 5, () -> { synchronized (CATALOG_LOCK) { held.countDown(); sleepForever(); } });
        held.await();
        start("invoice-renderer", 5, () -> { synchronized (CATALOG_LOCK) { } });
        CountDownLatch both = new CountDownLatch(2);
        start("ledger-writer", 5, () -> { synchronized (LEDGER) { both.countDown();
            try { both.await(); } catch (InterruptedException e) { } synchronized (JOURNAL) { } } });
        start("journal-flusher", 5, () -> { synchronized (JOURNAL) { both.countDown();
            try { both.await(); } catch (InterruptedException e) { } synchronized (LEDGER) { } } });
        start("shutdown-waiter", 5, () -> { synchronized (SHUTDOWN) {
            try { SHUTDOWN.wait(); } catch (InterruptedException e) { } } });
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("admin-listener", 5, () -> { try { server.accept(); } catch (IOException e) { } });
        start("audit-archiver", 9, Workload::sleepForever);
        Thread.sleep(1500);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        StringBuilder sb = new StringBuilder("{\"threads\": [");
        String sep = "";
        for (ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds(), true, true)) {
            if (ti == null) continue;
            StackTraceElement[] st = ti.getStackTrace();
            String top = st.length > 0 ? st[0].getClassName() + "." + st[0].getMethodName() : null;
            sb.append(sep).append("{\"id\": ").append(ti.getThreadId()).append(", \"name\": ").append(q(ti.getThreadName()))
              .append(", \"state\": ").append(q(ti.getThreadState().toString())).append(", \"priority\": ")
              .append(ti.getPriority()).append(", \"lock\": ").append(q(ti.getLockName())).append(", \"owner\": ")
              .append(q(ti.getLockOwnerName())).append(", \"top\": ").append(q(top)).append(", \"mine\": ")
              .append(MINE.contains(ti.getThreadName())).append("}");
            sep = ", ";
        }
        long[] dead = mx.findDeadlockedThreads();
        sb.append("], \"deadlocked\": ").append(Arrays.toString(dead == null ? new long[0] : dead)).append("}");
        try (Writer w = new FileWriter(args[0])) { w.write(sb.toString()); }
        System.out.println("READY");
        System.out.flush();
        sleepForever();
    }
}

class ShipmentRecord { long id; int qty; ShipmentRecord(long i, int q) { id = i; qty = q; } }
class CustomerProfile { String key; CustomerProfile(String k) { key = k; } }
class TariffTable { long[] rates = new long[16]; }
''').substitute(KEPT)

OUTPUTS = {  # output: (command, thread dump or histogram)
    "jstack": (["jstack", "-l"], "threads"),
    "thread_print": (["jcmd", "{pid}", "Thread.print"], "threads"),
    "class_histogram": (["jcmd", "{pid}", "GC.class_histogram"], "histogram"),
    "jmap_histo": (["jmap", "-histo:live"], "histogram"),
}


def _command(output: str, pid: int) -> list[str]:
    cmd, _ = OUTPUTS[output]
    return [part.format(pid=pid) for part in cmd] + ([] if "{pid}" in cmd else [str(pid)])


def thread_questions(record: dict[str, Any]) -> list[tuple[str, tuple[str, ...], list[tuple[str, str]]]]:
    """(scenario, wordings, [(fact text, note)]) from the program's ThreadMXBean record."""
    threads, dead = record["threads"], set(record["deadlocked"])
    asked = []
    blocked = [t for t in threads if t["state"] == "BLOCKED" and t["id"] not in dead and t["owner"]]
    if len(blocked) == 1:
        b = blocked[0]
        asked.append(("blocked_on_monitor",
                      (("Which thread is stuck waiting to enter a monitor (outside any deadlock), and which thread "
                        "holds that monitor?"),
                       "One thread cannot get a lock another thread is sitting on. Which two threads are they?"),
                      [(b["name"], "ThreadMXBean: the one BLOCKED thread outside findDeadlockedThreads()"),
                       (b["owner"], "ThreadMXBean: getLockOwnerName() of that thread")]))
    waiting = [t for t in threads if t["state"] == "WAITING" and (t["lock"] or "").startswith("java.lang.Object@")]
    if len(waiting) == 1:
        asked.append(("object_wait",
                      ("Which thread is waiting in Object.wait() for a notify on a plain Object?",
                       "Which thread sleeps in wait() on an application lock object, waiting to be notified?"),
                      [(waiting[0]["name"], "ThreadMXBean: the WAITING thread whose lock is a java.lang.Object")]))
    accepting = [t for t in threads if t["top"] and "accept" in t["top"].lower()]
    if len(accepting) == 1:
        asked.append(("accepting",
                      ("Which thread is blocked accepting incoming socket connections?",
                       "Which thread sits in a server socket's accept call?"),
                      [(accepting[0]["name"], f"ThreadMXBean: top frame {accepting[0]['top']}")]))
    raised = [t for t in threads if t["mine"] and t["priority"] != 5]
    if len(raised) == 1:
        asked.append(("raised_priority",
                      (("Which of the application's own threads (not the JVM's) runs at a priority other than "
                        "the default?"),
                       "Apart from the JVM's internal threads, which thread had its priority changed?"),
                      [(raised[0]["name"], f"ThreadMXBean: getPriority() = {raised[0]['priority']}")]))
    sleepers = [t for t in threads if t["mine"] and t["state"] == "TIMED_WAITING" and not t["owner"]
                and (t["top"] or "").endswith(".sleep")]
    holders = [t for t in threads if any(b["owner"] == t["name"] for b in blocked)]
    if len(holders) == 1 and holders[0] in sleepers:
        asked.append(("sleeping_holder",
                      ("Which sleeping thread is holding a lock that another thread needs?",
                       "Which thread went to sleep while still holding a monitor someone else is waiting for?"),
                      [(holders[0]["name"], "ThreadMXBean: sleeping, and the lock owner of the BLOCKED thread")]))
    return asked


def histogram_questions() -> list[tuple[str, tuple[str, ...], list[tuple[str, str]]]]:
    asked = []
    for cls, n in KEPT.items():
        asked.append((f"instances_{cls}",
                      (f"How many {cls} objects are alive on the heap?",
                       f"What is the live instance count of class {cls}?"),
                      [(str(n), "the program keeps exactly this many instances in a static list")]))
    top = max(KEPT, key=KEPT.__getitem__)
    asked.append(("most_instances_app",
                  (("Of the application's own classes (not JDK ones, no module shown), which has the most "
                    "live instances?"),
                   "Which class defined by the application itself has the most objects on the heap?"),
                  [(top, "the program's own instance counts")]))
    return asked


def _capture(work: Path) -> tuple[dict[str, str], dict[str, Any]]:
    (work / "Workload.java").write_text(WORKLOAD)
    record = work / "threads.json"
    proc = subprocess.Popen(["java", "-Xmx256m", "-XX:+UseSerialGC", "Workload.java", str(record)], cwd=work,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "READY":
            raise RuntimeError(f"the Java workload did not start: {line!r}")
        time.sleep(0.5)
        outputs = {name: run(_command(name, proc.pid), timeout=120).stdout for name in OUTPUTS}
    finally:
        proc.kill()
        proc.wait(timeout=30)
    return outputs, json.loads(record.read_text())


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("java") is None or shutil.which("jcmd") is None:
        raise RuntimeError("needs a JDK (java, jstack, jcmd, jmap)")
    outputs, record = _capture(work)
    asked = {"threads": thread_questions(record), "histogram": histogram_questions()}
    out = []
    for output, content in outputs.items():
        command = " ".join(_command(output, 4242)).replace("4242", "<pid>")
        for scen, wordings, facts in asked[OUTPUTS[output][1]]:
            kept = [fact(text, "extreme" if scen.startswith("most_") else "named_item", note, basis="independent")
                    for text, note in facts if content.count(text) == 1]
            if len(kept) != len(facts):
                continue  # a name or count that is not one spot of the output asks nothing
            sid = f"{output}_{scen}"
            intent = "extreme" if scen.startswith("most_") else "named"
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{sid}", wordings), content, kept))
    assert len(out) >= 10, f"too few jvm_diagnostics cases: {len(out)}"
    return out
