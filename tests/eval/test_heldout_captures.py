"""Fact computations of issue 33's held-out sources (the first six, dev since their one
measurement, and the later rounds), checked on their own: each reads the data through
another program or parser than the output asked about. These tests run the helpers on
small inputs of their own, never a compressor, and never print a held-out output."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from headroom.eval.corpus.captures import (
    _elf,
    gpg_keyring,
    man_pages,
    process_table,
    redis_replies,
    socket_table,
    sqlite_query,
    tz_transitions,
)

ZLIB = "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"


def test_transitions_are_where_the_offset_changes_to_the_second():
    found = [t for t in tz_transitions.transitions("Europe/Berlin") if t.year == 2021]
    # EU rules: the last Sunday of March and of October, 01:00 UT.
    assert found == [datetime(2021, 3, 28, 1, 0, tzinfo=UTC), datetime(2021, 10, 31, 1, 0, tzinfo=UTC)]
    assert tz_transitions.zdump_part(found[0], "Europe/Berlin") == \
        "Sun Mar 28 01:00:00 2021 UT = Sun Mar 28 03:00:00 2021 CEST"
    # A single-digit day is space-padded, as zdump writes it.
    assert "Apr  4" in tz_transitions.zdump_part(datetime(2021, 4, 4, 1, 0, tzinfo=UTC), "Europe/Berlin")


@pytest.mark.skipif(shutil.which("zdump") is None, reason="zdump (libc-bin)")
def test_zdump_writes_the_transition_the_way_zoneinfo_finds_it():
    from headroom.eval.corpus.captures._run import run

    text = run(["zdump", "-v", "-c", "2020,2022", "Europe/Berlin"]).stdout
    for t in (t for t in tz_transitions.transitions("Europe/Berlin") if t.year == 2021):
        assert text.count(tz_transitions.zdump_part(t, "Europe/Berlin")) == 1


@pytest.mark.skipif(shutil.which("nm") is None or not __import__("os").path.exists(ZLIB), reason="binutils, zlib")
def test_nm_symbols_and_objdump_sections_parse():
    funcs = _elf.functions(ZLIB, dynamic=True)
    names = {f.name.split("@")[0] for f in funcs}
    assert {"inflate", "deflate", "crc32"} <= names
    assert all(len(f.address) == 16 and f.size for f in funcs)
    sizes = _elf.section_sizes(ZLIB)
    assert sizes[".text"] > sizes[".rodata"] > 0


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gnupg")
def test_primary_keys_come_from_gpgs_colon_listing(tmp_path):
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    keys = gpg_keyring.primary_keys(home, gpg_keyring.KEYRINGS[0])
    assert keys and all(len(k.fingerprint) == 40 and k.fingerprint.endswith(k.keyid) for k in keys)
    assert all(k.uid and "<" not in k.uid for k in keys)
    assert gpg_keyring._day(0) == "1970-01-01"


def test_option_entries_come_from_the_roff_source():
    roff = "\n".join([".SH OPTIONS", ".TP", r"\fB\-k\fR, \fB\-\-keep\fR",
                      r"Keep (do not delete) input files during \fIcompression\fR or decompression.",
                      r'.IP "\-n count"', "Stop after count matching lines have been seen.",
                      ".TP", ".B \\-x", "A request line is not a tag."])
    assert man_pages.options(roff) == [("-k, --keep", "Keep (do not delete) input files"),
                                       ("-n count", "Stop after count matching lines have")]


def test_an_extreme_process_must_stand_well_clear_of_the_next():
    procs = [{"rss_kib": 900}, {"rss_kib": 300}, {"rss_kib": 10}]
    assert process_table._unique_max(procs, "rss_kib") == {"rss_kib": 900}
    # RSS moves a little between the table and the /proc reading: a near tie asks nothing.
    assert process_table._unique_max([{"rss_kib": 900}, {"rss_kib": 700}], "rss_kib") is None
    assert process_table._unique_max([{"rss_kib": 900}], "rss_kib") is None


def test_proc_net_tcp_ports_are_hex():
    assert socket_table._hex_port("0100007F:1F90") == 8080
    assert socket_table._hex_port("00000000000000000000000001000000:2328") == 9000


def test_sqlite_facts_are_ascii_and_the_longest_is_unique():
    assert sqlite_query._ascii("Argentine Republic") and not sqlite_query._ascii("Almería")
    assert not sqlite_query._ascii('say "x"')
    rows = [{"name": "abc"}, {"name": "abcdef"}, {"name": "abcd"}]
    assert sqlite_query._longest(rows, "name") == {"name": "abcdef"}
    assert sqlite_query._longest([{"name": "ab"}, {"name": "cd"}], "name") is None


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="sqlite3 shell")
def test_the_database_holds_what_the_iso_lists_hold(tmp_path):
    import json

    from headroom.eval.corpus.captures._run import run

    db = tmp_path / "iso.db"
    countries = [{"alpha_2": "XA", "alpha_3": "XAA", "numeric": "901", "name": "Alpha", "official_name": "Land of A"},
                 {"alpha_2": "XB", "alpha_3": "XBB", "numeric": "902", "name": "Beta"}]
    subs = [{"code": "XA-01", "name": "North", "type": "Region"}, {"code": "XB-02", "name": "South", "type": "Region",
                                                                  "parent": "XB-01"}]
    sqlite_query._database(db, countries, subs)
    rows = json.loads(run(["sqlite3", "-json", str(db), sqlite_query.COUNTRIES_SQL]).stdout)
    assert [(r["alpha_2"], r["official_name"]) for r in rows] == [("XA", "Land of A"), ("XB", None)]
    rows = json.loads(run(["sqlite3", "-json", str(db), "SELECT code, country, parent FROM subdivisions"]).stdout)
    assert rows == [{"code": "XA-01", "country": "XA", "parent": None}, {"code": "XB-02", "country": "XB",
                                                                         "parent": "XB-01"}]


def test_redis_info_facts_come_from_the_parsed_sections():
    info = {"commandstats": {"cmdstat_get": {"calls": 900, "usec": 450}, "cmdstat_zadd": {"calls": 12, "usec": 8000},
                             "cmdstat_info": {"calls": 5000, "usec": 90000}},
            "errorstats": {"errorstat_ERR": {"count": 7}, "errorstat_WRONGTYPE": {"count": 3}},
            "keyspace": {"db0": {"keys": 10, "expires": 2}}, "memory": {"used_memory_peak": 123456}}
    text = ("cmdstat_get:calls=900,usec=450,usec_per_call=0.50\r\ncmdstat_zadd:calls=12,usec=8000,usec_per_call=666\r\n"
            "cmdstat_info:calls=5000,usec=90000\r\nerrorstat_ERR:count=7\r\nerrorstat_WRONGTYPE:count=3\r\n"
            "db0:keys=10,expires=2,avg_ttl=0\r\nused_memory_peak:123456\r\nused_memory_peak_human:120.56K\r\n")
    facts = {sid: t for sid, _, _, t, _ in redis_replies._info_facts(text, info)}
    # INFO's own statistics move while they are read: the most time is zadd's, not info's.
    assert facts == {"most_time": "cmdstat_zadd:calls=12,usec=8000", "most_calls": "cmdstat_get:calls=900,usec=450",
                     "top_error": "errorstat_ERR:count=7", "keyspace_db0": "db0:keys=10,expires=2",
                     "peak_memory": "used_memory_peak:123456"}


# Issue 33's third round: the helpers that turn another reader's data into facts.

def test_a_plan_nodes_own_time_leaves_out_its_children():
    from headroom.eval.corpus.captures import pg_explain

    scan = {"Node Type": "Seq Scan", "Relation Name": "orders", "Alias": "o", "Actual Total Time": 40.0,
            "Actual Loops": 1}
    probe = {"Node Type": "Index Scan", "Index Name": "items_pkey", "Relation Name": "items", "Alias": "items",
             "Actual Total Time": 0.5, "Actual Loops": 20}
    join = {"Node Type": "Nested Loop", "Actual Total Time": 55.0, "Actual Loops": 1, "Plans": [scan, probe]}
    assert pg_explain.exclusive_ms(join) == 5.0 and pg_explain.exclusive_ms(probe) == 10.0
    assert pg_explain.dominant(join) is scan
    assert pg_explain.header(scan) == "Seq Scan on orders o"
    assert pg_explain.header(probe) == "Index Scan using items_pkey on items"
    # No node holds half of the time: nothing is asked.
    even = {**join, "Actual Total Time": 70.0, "Plans": [{**scan, "Actual Total Time": 30.0}, probe]}
    assert pg_explain.dominant(even) is None


def test_proc_net_route_is_little_endian_hex():
    from headroom.eval.corpus.captures import ip_links

    table = ("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
             "veth-app\t000010AC\tFE1E140A\t0003\t0\t0\t0\t0000F0FF\t0\t0\t0\n"
             "veth-app\t001E140A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
             "veth-app\t00000000\t021E140A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n")
    assert ip_links.gateways(table) == {"172.16.0.0/12": "10.20.30.254", "default": "10.20.30.2"}


def test_mountinfo_fields_and_dfs_use_share():
    from headroom.eval.corpus.captures import mount_table

    line = ("412 398 0:61 /site /mnt/published ro,relatime shared:9 - tmpfs uploads-tmpfs rw,size=49152k,mode=750\n"
            "400 398 0:55 / /mnt/spool rw,relatime - tmpfs spool-tmpfs rw,size=32768k\n")
    first, second = mount_table.mountinfo_entries(line)
    assert (first["root"], first["target"], first["fstype"], first["source"]) == \
        ("/site", "/mnt/published", "tmpfs", "uploads-tmpfs")
    assert "size=49152k" in first["super_options"].split(",") and second["root"] == "/"
    # df: used / (used + available); reserved blocks (bfree - bavail) count as neither.
    assert mount_table.used_share({"blocks": 100, "bfree": 30, "bavail": 20, "frsize": 4096}) == 70 / 90


def test_cipher_ids_print_as_openssls_two_byte_code_points():
    from headroom.eval.corpus.captures import tls_ciphers

    assert tls_ciphers.code_point(0x0300C02C) == "0xC0,0x2C"
    assert tls_ciphers.code_point(0x03001302) == "0x13,0x02"
    table = " - DHE-RSA-AES256-SHA TLSv1 \n - ECDHE-RSA-AES256-SHA TLSv1 \n"
    assert tls_ciphers._once(table, "ECDHE-RSA-AES256-SHA") and not tls_ciphers._once(table, "DHE-RSA-AES256-SHA")


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl")
def test_the_servers_record_is_what_curl_shows(tmp_path):
    import json
    import subprocess
    import sys

    from headroom.eval.corpus.captures import curl_trace
    from headroom.eval.corpus.captures._run import free_port, run, wait_for

    (tmp_path / "server.py").write_text(curl_trace.SERVER)
    port, record = free_port(), tmp_path / "record.json"
    server = subprocess.Popen([sys.executable, str(tmp_path / "server.py"), str(port), str(record)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: run(["curl", "-s", "-o", "/dev/null", f"{base}/x"], check=False).returncode == 0)
        trace = curl_trace._curl("verbose", ["-L", f"{base}/login"])
    finally:
        server.terminate()
        server.wait(timeout=10)
    rec = json.loads(record.read_text())
    assert trace.count(f"sid={rec['sid']};") == 1 and trace.count(rec["dashboard"]["request_id"]) == 1
    assert "< HTTP/1.1 302" in trace and "< HTTP/1.1 200 OK" in trace


# Issue 33's fourth round: the readers that give the facts, on inputs of the tests' own.

def test_thread_questions_come_from_the_mxbean_record():
    from headroom.eval.corpus.captures import jvm_diagnostics

    def t(i, name, state, *, lock=None, owner=None, top=None, prio=5, mine=True):
        return {"id": i, "name": name, "state": state, "priority": prio, "lock": lock, "owner": owner, "top": top,
                "mine": mine}

    record = {"threads": [
        t(1, "main", "TIMED_WAITING", top="java.lang.Thread.sleep", mine=False),
        t(2, "Reference Handler", "RUNNABLE", prio=10, mine=False),
        t(3, "holder", "TIMED_WAITING", top="java.lang.Thread.sleep"),
        t(4, "waiter", "BLOCKED", lock="java.lang.Object@1", owner="holder", top="App.run"),
        t(5, "dl-a", "BLOCKED", lock="java.lang.Object@2", owner="dl-b"),
        t(6, "dl-b", "BLOCKED", lock="java.lang.Object@3", owner="dl-a"),
        t(7, "listener", "RUNNABLE", top="sun.nio.ch.Net.accept"),
        t(8, "notified", "WAITING", lock="java.lang.Object@4", top="java.lang.Object.wait"),
        t(9, "archiver", "TIMED_WAITING", prio=9, top="java.lang.Thread.sleep"),
    ], "deadlocked": [5, 6]}
    asked = {scen: [text for text, _ in facts] for scen, _, facts in jvm_diagnostics.thread_questions(record)}
    # The deadlocked pair is never the "blocked" answer; the JVM's own priority-10 thread is
    # not the application's raised one.
    assert asked == {"blocked_on_monitor": ["waiter", "holder"], "object_wait": ["notified"],
                     "accepting": ["listener"], "raised_priority": ["archiver"], "sleeping_holder": ["holder"]}


@pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="e2fsprogs")
def test_the_super_block_and_group_descriptors_read_with_struct(tmp_path):
    from headroom.eval.corpus.captures import ext4_dumpe2fs
    from headroom.eval.corpus.captures._run import run

    img = tmp_path / "t.img"
    with open(img, "wb") as fh:
        fh.truncate(4 * 1024 * 1024)
    run(["mkfs.ext4", "-q", "-F", "-b", "1024", "-g", "1024", "-L", "probe", "-M", "/mnt/probe",
         "-U", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", str(img)])
    data = img.read_bytes()
    sb = ext4_dumpe2fs.superblock(data)
    assert (sb["magic"], sb["uuid"], sb["volume"], sb["last_mounted"], sb["block_size"]) == \
        (0xEF53, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "probe", "/mnt/probe", 1024)
    groups = ext4_dumpe2fs.groups(data, sb)
    assert len(groups) == 4 and groups[0]["start"] == 1 and groups[-1]["end"] == sb["blocks"] - 1
    assert sum(g["free_blocks"] for g in groups) == sb["free_blocks"]
    assert ext4_dumpe2fs._head(groups[1]) == "Group 1: (Blocks 1025-2048)"


def test_hex_dump_offsets_are_the_line_holding_the_byte(tmp_path):
    import zipfile

    from headroom.eval.corpus.captures import hex_dump

    assert hex_dump.label(0x8D8, "xxd") == "000008d0:" and hex_dump.label(0x8D8, "hexdump") == "\n000008d0  "
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("one.txt", "x" * 100)
        zf.writestr("two.txt", "y" * 10)
    offsets = hex_dump.zip_offsets(archive)
    # A stored member: 30-byte local header + name + data before the next one.
    assert offsets["one.txt"] == 0 and offsets["two.txt"] == 30 + len("one.txt") + 100
    assert archive.read_bytes()[offsets["<end record>"]:][:4] == b"PK\x05\x06"
    assert archive.read_bytes()[offsets["<central directory>"]:][:4] == b"PK\x01\x02"


@pytest.mark.skipif(not __import__("os").path.exists("/usr/bin/true"), reason="coreutils")
def test_elf_section_offsets_come_from_the_section_headers():
    from pathlib import Path

    from headroom.eval.corpus.captures import hex_dump

    data = Path("/usr/bin/true").read_bytes()
    shoff, sections = hex_dump.elf_sections(data)
    assert shoff == len(data) - 64 * int.from_bytes(data[0x3C:0x3E], "little")  # the table ends the file
    assert data[sections[".interp"]:].startswith(b"/lib")  # the interpreter's path


def test_memcheck_facts_name_the_marked_source_lines():
    from headroom.eval.corpus.captures import valgrind_memcheck as vm

    lines = vm.PROGRAM.splitlines()
    assert "memcpy(out, s, n + 1)" in lines[vm.marked_line(vm.PROGRAM, "overflow") - 1]
    assert f"malloc({vm.INDEX})" in lines[vm.marked_line(vm.PROGRAM, "possibly") - 1]
    text = {scen: [t for t, _ in facts] for scen, _, facts in vm.questions("text")}
    assert text["tariff_leak"] == ["4,904 bytes in 1 blocks are definitely lost"]
    xml = {scen: [t for t, _ in facts] for scen, _, facts in vm.questions("xml")}
    assert xml["tariff_leak"] == ["<leakedbytes>4904</leakedbytes>"] and "largest_block" not in xml


def test_blame_edits_never_land_inside_a_docstring():
    from headroom.eval.corpus.captures import git_blame

    source = 'def f():\n    """Doc\n    more doc\n    """\n    return 1\n'
    assert git_blame._string_lines(source) == {2, 3, 4}
    assert git_blame._safe("return self._list.count(value)") and not git_blame._safe('x = "quoted value here"')


# Issue 33's fifth round: the helpers that compute facts from another reader of the state.

def test_cache_totals_count_a_shared_cache_once(tmp_path, monkeypatch):
    from headroom.eval.corpus.captures import cpu_topology

    def cache(cpu, index, level, kind, size, shared):
        d = tmp_path / f"cpu{cpu}" / "cache" / f"index{index}"
        d.mkdir(parents=True)
        for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
            (d / name).write_text(f"{value}\n")

    for cpu in (0, 1):
        cache(cpu, 0, 1, "Data", "48K", str(cpu))
        cache(cpu, 1, 1, "Instruction", "32K", str(cpu))
        cache(cpu, 2, 3, "Unified", "307200K", "0-1")
    monkeypatch.setattr(cpu_topology, "SYS_CPU", tmp_path)
    assert cpu_topology.cache_totals() == {"L1d": "96 KiB", "L1i": "64 KiB", "L3": "300 MiB"}
    assert cpu_topology.size_text(4096) == "4 MiB" and cpu_topology.size_text(512) == "512 KiB"


def test_mitigation_is_the_first_clause_of_the_kernels_text(tmp_path, monkeypatch):
    from headroom.eval.corpus.captures import cpu_topology

    vul = tmp_path / "vulnerabilities"
    vul.mkdir()
    (vul / "meltdown").write_text("Not affected\n")
    (vul / "spectre_v2").write_text("Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; BHI: Vulnerable\n")
    (vul / "tsx_async_abort").write_text("Mitigation: TSX disabled\n")
    monkeypatch.setattr(cpu_topology, "SYS_CPU", tmp_path)
    assert cpu_topology.mitigations() == {"spectre_v2": "Enhanced / Automatic IBRS", "tsx_async_abort": "TSX disabled"}


def test_pip_show_facts_read_the_installed_metadata():
    from importlib import metadata

    from headroom.eval.corpus.captures import pip_show

    dist = metadata.distribution("idna")
    biggest = pip_show.largest_file("idna")
    assert biggest in {str(f) for f in dist.files}
    assert all(dist.locate_file(f).stat().st_size <= dist.locate_file(biggest).stat().st_size
               for f in dist.files if dist.locate_file(f).is_file())
    users = pip_show.required_by("idna")
    assert all(any(pip_show._norm(r.split(";")[0]).startswith("idna") for r in metadata.requires(u) or ())
               for u in users)
    assert pip_show._norm("Foo_Bar.baz") == "foo-bar-baz"


def test_each_worker_is_the_answer_to_one_question():
    from headroom.eval.corpus.captures import proc_status

    answers = [name for _, _, _, name, _, _ in proc_status.ASKED]
    assert len(set(answers)) == len(answers) == len(proc_status.WORKERS)


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make")
def test_make_database_holds_the_makefiles_values_once(tmp_path):
    from headroom.eval.corpus.captures import make_database

    cases = make_database.build(tmp_path)
    assert {c["facts"][0]["text"] for c in cases} <= {text for _, text, _, _ in make_database.ASKED}
    # make runs with a bare environment: none of the building machine's variables is dumped.
    assert all("HOME =" not in c["content"] for c in cases)


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="dpkg")
def test_dpkg_state_tells_installed_from_absent():
    from headroom.eval.corpus.captures import apt_policy

    state = apt_policy.dpkg_state(("dpkg", "no-such-package-xyz"))
    assert state["dpkg"] and state["dpkg"][0].isdigit() and state["no-such-package-xyz"] is None


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl")
def test_certificate_expiry_comes_from_pythons_decoder(tmp_path):
    from headroom.eval.corpus.captures import tls_handshake
    from headroom.eval.corpus.captures._run import run

    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "45", "-subj", "/CN=t.test"])
    end = run(["openssl", "x509", "-noout", "-enddate", "-in", str(cert)]).stdout.strip()
    assert end == f"notAfter={tls_handshake.not_after(cert)}"


# Sixth round (issue 33): the helpers that define the facts, on inputs the tests make.


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen")
def test_key_fingerprints_are_hashes_of_the_decoded_blob(tmp_path):
    from headroom.eval.corpus.captures import ssh_key_fingerprints as skf
    from headroom.eval.corpus.captures._run import run

    pub = skf.keygen(tmp_path, 0, "t@test", "ed25519", 0).read_text().strip()
    for flags, fp in (([], skf.sha256_fp), (["-E", "md5"], skf.md5_fp)):
        out = run(["ssh-keygen", "-l", *flags, "-f", str(tmp_path / "keys" / "key00.pub")]).stdout
        assert out.split()[1] == fp(pub)


def test_only_kind_needs_exactly_one_holder():
    from headroom.eval.corpus.captures.ssh_key_fingerprints import _only

    keys = {"a": ("ecdsa", 384), "b": ("ed25519", 0), "c": ("ed25519", 0)}
    assert _only(keys, ("ecdsa", 384)) == "a"
    assert _only(keys, ("ed25519", 0)) is None and _only(keys, ("rsa", 2048)) is None


def test_sysvipc_rows_follow_the_header_and_keys_are_written_as_the_tools_write_them():
    from headroom.eval.corpus.captures import sysv_ipc

    text = ("       key      shmid perms       size  cpid\n"
            "1196312736          9   644  100663296  21\n"
            " 305419896         10   600       4096  21\n")
    rows = sysv_ipc.proc_rows(text)
    assert rows[0] == {"key": "1196312736", "shmid": "9", "perms": "644", "size": "100663296", "cpid": "21"}
    assert sysv_ipc.hexkey(rows[1]["key"]) == "0x12345678"
    assert sysv_ipc._one(rows, lambda r: int(r["size"])) == "0x474e48a0"
    assert sysv_ipc._one(rows, lambda r: r["cpid"]) is None  # a tie names nobody


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf")
def test_needed_entries_come_from_the_dynamic_section():
    from headroom.eval.corpus.captures import ldd_deps

    assert "libc.so.6" in ldd_deps.needed(Path(ZLIB))
    libs = ldd_deps.closure(Path(ZLIB))
    assert libs is not None and {"libc.so.6", "ld-linux-x86-64.so.2"} <= libs
    assert ldd_deps.is_elf(Path(ZLIB))


def test_file_kinds_are_read_back_from_the_first_bytes(tmp_path):
    from headroom.eval.corpus.captures import file_types

    rare = file_types.make_uploads(tmp_path / "u")
    assert set(rare) == set(file_types.RARE)
    assert all(file_types.check(tmp_path / "u", name, kind) for kind, name in rare.items())
    assert not file_types.check(tmp_path / "u", rare["gzip"], "zip")


def test_missing_line_ranges_join_runs_of_statements_across_non_statements():
    from headroom.eval.corpus.captures.coverage_report import ranges

    stat = {"statements": [1, 2, 4, 5, 9, 12, 13, 20], "missing": [4, 5, 9, 13, 20]}
    assert ranges(stat) == "4-9, 13-20"
    assert ranges({"statements": [3, 7], "missing": [7]}) == "7"


# Seventh round (issue 33): the helpers that define the facts, on inputs the tests make.


def test_an_answer_stands_once_only_as_a_whole_word():
    from headroom.eval.corpus.captures._asked import stands_once

    assert stands_once("thread svc-a here\n", "svc-a")
    assert not stands_once("svc-ab\n", "svc-a")  # part of a longer name
    assert not stands_once("00007f00 7f00\n", "7f00")  # twice
    assert not stands_once("x\n", "")


def test_smaps_rows_carry_start_perms_path_and_sizes():
    from headroom.eval.corpus.captures.memory_maps import address, smaps

    text = ("55d0c000-55d0d000 r--p 00000000 fe:00 26723                      /usr/bin/python3.11\n"
            "Size:                  4 kB\nRss:                   4 kB\nLocked:                0 kB\n"
            "7f00a000-7f00b000 rw-s 00000000 fe:00 11 /srv/ledger.idx (deleted)\n"
            "Rss:                 512 kB\nVmFlags: rd wr sh mr mw me ms\n")
    maps = smaps(text)
    assert [m["start"] for m in maps] == [0x55d0c000, 0x7f00a000]
    assert maps[1]["perms"] == "rw-s" and maps[1]["path"].endswith("(deleted)") and maps[1]["Rss"] == 512
    assert address(0x7f00a000, "x") == "000000007f00a000" and address(0x7f00a000, "X") == "7f00a000"


def test_a_job_leads_only_by_a_clear_margin():
    from headroom.eval.corpus.captures.time_verbose import leader

    jobs = [{"command": "a", "rss": 300}, {"command": "b", "rss": 100}, {"command": "c", "rss": 190}]
    assert leader(jobs, "rss") == ("a",)
    assert leader(jobs, "rss", margin=2.0) == ()


def test_proc_locks_rows_mark_the_blocked_request():
    from headroom.eval.corpus.captures.file_locks import proc_locks

    rows = proc_locks("3: POSIX  ADVISORY  WRITE 11 fe:00:3369699 8192 12287\n"
                      "3: -> POSIX  ADVISORY  WRITE 12 fe:00:3369699 10240 14335\n"
                      "4: FLOCK  ADVISORY  READ 2 fe:00:17 0 EOF\n")
    assert [(r["pid"], r["blocked"], r["inode"]) for r in rows] == [(11, False, 3369699), (12, True, 3369699),
                                                                       (2, False, 17)]
    assert rows[2]["type"] == "FLOCK" and rows[2]["end"] == "EOF"


def test_series_rows_inside_an_event_need_a_seconds_margin_and_must_stand_out():
    from headroom.eval.corpus.captures.vm_series import inside, outside, standing_out, vmstat_rows

    base = 1796000000.0  # a whole second
    stamps = [f"2026-11-30 00:53:{s:02d}" for s in range(20, 30)]
    window = (base + 0.4, base + 4.6)  # 00:53:20.4 .. 00:53:24.6
    assert inside(window, stamps) == ("2026-11-30 00:53:22", "2026-11-30 00:53:23")
    assert "2026-11-30 00:53:21" not in outside(window, stamps) and "2026-11-30 00:53:26" in outside(window, stamps)
    assert inside(window, ["00:53:22"]) == ("00:53:22",)  # mpstat's bare times are on the window's day
    rows = {"a": 5.0, "b": 90.0, "c": 80.0, "d": 60.0}
    assert standing_out(rows, ("b", "c"), ["a", "d"]) == ("b", "c")
    assert standing_out(rows, ("c", "d"), ["a", "b"]) == ()
    text = ("--procs-- ---memory--- -----timestamp-----\n   r    b   free  cs                 UTC\n"
            "   2    0    100  45 2026-11-30 00:53:20\n--procs-- ---memory--- -----timestamp-----\n"
            "   r    b   free  cs                 UTC\n   3    0     90 999 2026-11-30 00:53:21\n")
    assert vmstat_rows(text)["2026-11-30 00:53:21"] == {"r": 3, "b": 0, "free": 90, "cs": 999}


def test_gdb_thread_roles_are_shuffled_but_fixed():
    from headroom.eval.corpus.captures.gdb_threads import POOL, ROLES, assign

    names = assign()
    assert names == assign() and len(names) == POOL + len(ROLES) - 1
    assert sorted(set(names.values())) == sorted(ROLES)


# Eighth round (issue 33): the readers that define the facts, on inputs the tests make.


def test_zip_roles_find_the_stored_member_and_the_one_that_shrinks_least(tmp_path):
    import random
    import zipfile

    from headroom.eval.corpus.captures.archive_members import zip_roles

    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("pkg/logo.png", bytes(5000), compress_type=zipfile.ZIP_STORED)
        z.writestr("pkg/noise.bin", random.Random(1).randbytes(4000), compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("pkg/a.py", "x = 1\n" * 400, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("pkg/b.py", "y = 2\n" * 300, compress_type=zipfile.ZIP_DEFLATED)
    roles = zip_roles(wheel)
    assert roles["stored"] == ["pkg/logo.png"] and roles["worst"] == "pkg/noise.bin"
    assert roles["largest_py"] == "pkg/a.py" and len(roles["crcs"]["pkg/a.py"]) == 8


def test_blob_ids_and_pack_counts_are_read_as_git_writes_them():
    import struct

    from headroom.eval.corpus.captures.git_objects import blob_id, deepest_delta, pack_count

    assert blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's well-known empty blob
    fanout = [0] * 255 + [277]
    idx = b"\377tOc" + struct.pack(">I", 2) + struct.pack(">256I", *fanout)
    assert pack_count(idx) == 277
    zero = "0" * 40
    check = f"a {zero}\nb a\nc b\nd a\n"
    assert deepest_delta(check) == "c"


def test_sysctl_facts_pick_the_one_interface_that_differs():
    from headroom.eval.corpus.captures.kernel_params import largest_mtu, only_key

    state = {"net.ipv4.conf.all.forwarding": "1", "net.ipv4.conf.lan0.forwarding": "0",
             "net.ipv4.conf.wan0.forwarding": "1", "net.ipv6.conf.lo.mtu": "65536",
             "net.ipv6.conf.lan0.mtu": "1500", "net.ipv6.conf.wan0.mtu": "7168"}
    assert only_key(state, ("net.ipv4.conf.", ".forwarding"), "1") == "net.ipv4.conf.wan0.forwarding"
    assert largest_mtu(state) == "net.ipv6.conf.wan0.mtu"  # loopback aside


def test_proc_limits_rows_keep_the_kernels_words():
    from headroom.eval.corpus.captures.process_limits import proc_limits

    text = ("Limit                     Soft Limit           Hard Limit           Units     \n"
            "Max cpu time              3600                 3900                 seconds   \n"
            "Max core file size        0                    unlimited            bytes     \n"
            "Max nice priority         0                    0                    \n")
    assert proc_limits(text) == {"Max cpu time": ("3600", "3900"), "Max core file size": ("0", "unlimited"),
                                 "Max nice priority": ("0", "0")}


def test_the_config_header_is_written_from_the_record():
    from headroom.eval.corpus.captures.macro_dump import OFF, PROFILED, header, limits

    text = header()
    assert f"#define HAVE_{OFF} 0" in text and text.count(" 0\n") == 1
    for name, value in limits().items():
        assert f"#define {name} {value}\n" in text
    for macro, (low, high) in PROFILED.items():
        assert f"#define {macro} {low}\n#if SHOPD_PROFILE >= 3\n#undef {macro}\n#define {macro} {high}\n" in text


# Issue 33's ninth round: checksum listings, directory listings, ASN.1 dumps, class files,
# gettext catalogues, pkg-config queries.

def test_the_posix_crc_is_the_one_cksum_prints(tmp_path):
    from headroom.eval.corpus.captures.checksum_listings import posix_cksum

    assert posix_cksum(b"") == 4294967295  # no bytes, no length bytes: the register inverted
    if shutil.which("cksum") is None:
        return
    from headroom.eval.corpus.captures._run import run

    for size in (1, 255, 256, 70_000):
        (tmp_path / "f").write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        crc = run(["cksum", "f"], cwd=tmp_path).stdout.split()[0]
        assert crc == str(posix_cksum((tmp_path / "f").read_bytes())), size


def test_a_directory_entry_is_named_the_way_each_listing_names_it():
    from headroom.eval.corpus.captures.dir_listings import TOP, _spelled

    assert _spelled("data/shard-05/wal-0504.seg", "find_ls") == f"./{TOP}/data/shard-05/wal-0504.seg"
    assert _spelled("data/shard-05/wal-0504.seg", "ls_laR") == "wal-0504.seg"


def test_der_lengths_integers_and_the_walker_agree():
    from headroom.eval.corpus.captures.asn1_dumps import children, der_int, integer_text, tlv

    assert integer_text(5) == "05" and integer_text(0x1BB) == "01BB" and integer_text(0xFF12) == "FF12"
    assert der_int(0x80) == b"\x02\x02\x00\x80"  # a positive INTEGER keeps its sign byte
    big = tlv(0x04, b"x" * 300)
    assert big[:4] == b"\x04\x82\x01\x2c"
    doc = tlv(0x30, tlv(0x30, b"") + big + tlv(0x03, b"\x00\x01"))
    assert children(doc) == [(4, 0x30), (6, 0x04), (310, 0x03)]


def test_descriptors_read_as_javap_spells_parameters():
    from headroom.eval.corpus.captures.java_classes import Method, constant_text, java_types

    assert java_types("I[JLjava/lang/String;[[D") == ["int", "long[]", "java.lang.String", "double[][]"]
    assert Method("fold", "(JJI)J", 2).signature == "fold(long, long, int)"
    assert Method("flush", "()V", 1).signature == "flush()"
    assert constant_text("J", 604800013) == "long 604800013l" and constant_text("I", 7) == "int 7"


@pytest.mark.skipif(shutil.which("javac") is None, reason="a JDK")
def test_the_class_reader_finds_the_odd_methods(tmp_path):
    from headroom.eval.corpus.captures._run import run
    from headroom.eval.corpus.captures.java_classes import (
        CLASS,
        ClassReader,
        class_roles,
        java_source,
    )

    (tmp_path / f"{CLASS}.java").write_text(java_source())
    run(["javac", "--release", "17", f"{CLASS}.java"], cwd=tmp_path)
    roles = class_roles(ClassReader((tmp_path / f"{CLASS}.class").read_bytes()))
    assert roles["handler"] == "parseQuota(java.lang.String)" and roles["synchronized"] == "flushPending()"
    assert roles["throws"] == "loadSegment(java.nio.file.Path)" and roles["longest"] == "rollChecksum(int[])"
    assert roles["deepest"] == "foldNested(long, long, int)" and roles["most_locals"] == "sumWindow(long[])"
    assert roles["constants"] == {"RETENTION_MS": "long 604800013l", "MAX_SEGMENTS": "int 4093"}


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="gettext")
def test_gettext_reads_back_the_catalogue_the_capture_wrote(tmp_path):
    from headroom.eval.corpus.captures._run import run
    from headroom.eval.corpus.captures.gettext_catalogs import catalogue_roles, messages, write_po

    write_po(tmp_path / "de.po", "de", "T <t@example>", messages(0))
    run(["msgfmt", "-c", "-o", str(tmp_path / "de.mo"), str(tmp_path / "de.po")])
    roles = catalogue_roles(tmp_path / "de.mo")
    assert roles["status_open"] == "Geöffnet" and roles["menu_open"] == "Öffnen"
    assert roles["many_parcels"] == "%d Pakete sind unterwegs" and roles["longest"] == "Payment pending"
    assert roles["translator"] == "T <t@example>"


def test_pkg_config_variables_expand_and_the_static_chain_is_followed():
    from headroom.eval.corpus.captures.pkg_config import expand, make_packages, static_closure

    assert expand({"prefix": "/p", "libdir": "${prefix}/lib", "dir": "${libdir}/x"})["dir"] == "/p/lib/x"
    by = {p.name: p for p in make_packages()}
    chain = static_closure(by, "shopd-full")
    assert {"libgrpc-core", "libprotobuf-c", "libxxhash", "libunwind", "libyaml"} <= set(chain)
    assert "libopus" not in chain


# Issue 33's tenth round: source tags, perl configuration, locale dumps, the library cache,
# terminfo dumps, include trees.

def test_ast_reads_the_odd_definitions(tmp_path):
    from headroom.eval.corpus.captures.source_tags import definitions

    (tmp_path / "m.py").write_text("LIMIT = 5\n\nclass Bad(ValueError):\n    pass\n\nclass S:\n"
                                   "    def run(self, a, b):\n        def inner(x):\n            return x\n"
                                   "        return inner\n\nasync def go(t):\n    return t\n")
    defs = {d["name"]: d for d in definitions(tmp_path)}
    assert defs["LIMIT"]["value"] == 5 and defs["Bad"]["bases"] == ["ValueError"]
    assert defs["inner"]["inside_function"] and not defs["run"]["inside_function"]
    assert defs["inner"]["line"] == "def inner(x):" and defs["run"]["args"] == 3
    assert defs["go"]["node"] == "AsyncFunctionDef"


def test_perl_settings_are_spelled_as_each_dump_writes_them():
    from headroom.eval.corpus.captures.perl_config import patch_about, setting

    config = {"ivsize": "8", "ivtype": "long"}
    assert setting(config, "ivsize")("summary") == ("ivsize=8",)
    assert setting(config, "ivtype")("summary") == ("ivtype='long'",)
    assert setting(config, "ivsize")("all") == ("ivsize='8'",)
    patches = ["DEBPKG:a/one - Fix the pager", "DEBPKG:b/two - Tweak @INC ordering for Debian"]
    assert patch_about(patches, "@INC ordering") == "DEBPKG:b/two"


def test_locale_settings_are_spelled_as_locale_k_writes_them():
    from headroom.eval.corpus.captures.locale_dumps import ITEMS, spelled

    assert spelled("d_fmt", "%d.%m.%Y") == 'd_fmt="%d.%m.%Y"'
    assert spelled("first_weekday", "2") == "first_weekday=2" and spelled("", "torstai") == "torstai"
    assert len({(loc, item, only) for loc, item, _, only, _ in ITEMS}) == len(ITEMS)


def test_the_library_plan_has_one_of_each_odd_kind():
    from headroom.eval.corpus.captures.library_cache import DIRS, plan

    libs = plan()
    assert libs["renamed"].file != libs["renamed"].soname and libs["no_soname"].soname is None
    assert libs["simd_v3"].folder == DIRS[3] and libs["simd_v3"].file == libs["simd_base"].file
    assert libs["auth_old"].soname != libs["auth_new"].soname
    assert libs["json_shop"].soname == libs["json_vendor"].soname
    assert libs["json_shop"].folder != libs["json_vendor"].folder
    files = [(lib.folder, lib.file) for lib in libs.values()]
    assert len(files) == len(set(files))


def test_terminfo_bytes_are_spelled_as_a_terminfo_source_writes_them():
    from headroom.eval.corpus.captures.terminfo_dumps import spelled

    assert spelled("\x1b[15;7~") == "\\E[15;7~"
    assert spelled("\x07") == "^G" and spelled("\x7f") == "^?"
    assert spelled("a,b^c\\") == "a\\,b\\^c\\\\"


def test_a_guarded_header_opens_once_at_its_first_depth():
    from headroom.eval.corpus.captures.include_trees import first_depths, header_text

    headers = {"a.h": ["b.h", "<stdio.h>", "c.h"], "b.h": ["c.h"], "c.h": ["d.h"], "d.h": []}
    assert first_depths(headers, ["a.h", "d.h"]) == {"a.h": 1, "b.h": 2, "c.h": 3, "d.h": 4}
    assert first_depths(headers, ["d.h", "a.h"])["d.h"] == 1
    text = header_text("shop/core/log.h", ["shop/core/clock.h", "<time.h>"])
    assert text.startswith("#ifndef SHOP_CORE_LOG_H\n#define SHOP_CORE_LOG_H\n")
    assert '#include "shop/core/clock.h"\n#include <time.h>\n' in text


# Issue 33's eleventh round: syntax trees, frequency tables, JSON paths, byte differences,
# tree diffs, CMake cache listings.

def test_the_generated_modules_hold_each_odd_definition_once():
    import ast
    import random

    from headroom.eval.corpus.captures.syntax_trees import ODD, module_text

    for module, spec in ODD.items():
        tree = ast.parse(module_text(module, random.Random(5)))
        functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        assert isinstance(functions[spec["coroutine"]], ast.AsyncFunctionDef)
        assert functions[spec["cached"]].decorator_list
        widest = max(functions.values(), key=lambda f: len(f.args.args))
        assert widest.name == spec["many_params"]
        ints = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int]
        assert max(ints) == spec["largest"] and ints.count(spec["setting"][1]) == 1


def test_frequency_plan_has_one_lone_client_path_status_and_agent():
    import random
    from collections import Counter

    from headroom.eval.corpus.captures import frequency_tables as ft

    rows = ft.plan(random.Random(3))
    for column, lone in enumerate((ft.LONE_CLIENT, ft.LONE_PATH, ft.LONE_STATUS, ft.LONE_AGENT)):
        counts = Counter(r[column] for r in rows)
        assert counts[lone] == 1 and list(counts.values()).count(1) == 1
    counts = Counter({"a": 3, "b": 3, "c": 5, "d": 7, "e": 9})
    assert ft.unshared(counts, ["a", "c", "d"]) == ["c", "d"]
    assert ft.middle_ones(counts, 2, ("c",)) == ["d", "e"]


def test_jq_answers_come_from_the_document_the_capture_wrote():
    import random

    from headroom.eval.corpus.captures.json_paths import ODD_AT, inventory

    doc = inventory(random.Random(4))
    services = doc["services"]
    assert [s["name"] for s in services if s["replicas"] == 0] == [services[min(ODD_AT)]["name"]]
    assert sum(s["owner"] is None for s in services) == 1 and sum(not s["tls"] for s in services) == 1
    assert max(s["limits"]["memory_mib"] for s in services) == 24576
    assert all(s["name"] not in s["image"] for s in services)


def test_cmp_offsets_count_from_one_as_cmp_does(tmp_path):
    import subprocess

    from headroom.eval.corpus.captures.byte_diffs import changed_at, cmp_offset

    (tmp_path / "a").write_bytes(b"abcdef")
    (tmp_path / "b").write_bytes(b"abXdeY")
    # cmp exits 1 when the files differ: that is its answer, not a failure.
    shown = subprocess.run(["cmp", "-l", "a", "b"], check=False, cwd=tmp_path, capture_output=True, text=True)
    expected = [cmp_offset(at) for at in changed_at(b"abcdef", b"abXdeY")]
    assert [line.split()[0] for line in shown.stdout.splitlines()] == expected == ["3", "6"]


def test_the_release_record_matches_the_trees():
    import random

    from headroom.eval.corpus.captures.tree_diffs import ADDED, REMOVED, trees

    old, new, changes = trees(random.Random(6))
    assert REMOVED in old and REMOVED not in new and ADDED in new and ADDED not in old
    for path, key, before, after in changes:
        assert old.get(path, {}).get(key) == before and new[path].get(key) == after
    # Every value is a setting's own, so an old or a new value names one line of a diff.
    before = [v for settings in old.values() for v in settings.values()]
    assert len(before) == len(set(before))
    assert not {after for *_, after in changes} & set(before)


def test_cmake_record_switches_off_one_feature_and_keeps_the_pool_size_unique():
    import random

    from headroom.eval.corpus.captures.cmake_cache import ON_COMMAND_LINE, declarations

    text, record = declarations(random.Random(7))
    assert [n for n, v in record.items() if v == "OFF"] == [n for n, v in ON_COMMAND_LINE.items() if v == "OFF"]
    pool = record["SHOP_POOL_SIZE"]
    assert sum(pool in v for v in record.values()) == 1
    assert "mark_as_advanced(SHOP_ABI_TAG)" in text


# Round 12 (issue 33's twelfth held-out round): GCC parameter dumps, linker maps, bash traces,
# pickle disassemblies, patch reports, reflogs.

def test_gcc_tuning_sits_in_response_files_not_on_the_command_line():
    from headroom.eval.corpus.captures.compiler_params import COMMANDS, OPTION_FILES, PARAMS_O2

    typed = " ".join(COMMANDS.values())
    assert all(f"@{name}" in typed for name in OPTION_FILES)
    assert all(value not in typed for value, _ in PARAMS_O2.values())
    assert "--param=max-gcse-memory=7919" in OPTION_FILES["tuning-o2.opts"]


def test_the_linked_service_has_one_big_table_and_one_zero_buffer():
    import random

    from headroom.eval.corpus.captures import link_maps

    rnd = random.Random(8)
    sources = {part: link_maps.module_source(part, rnd) for part in link_maps.PARTS}
    sizes = {part: int(text.split("[", 1)[1].split("]", 1)[0]) for part, (text, _) in sources.items()}
    assert max(sizes, key=sizes.get) == link_maps.BIGGEST_TABLE
    assert [p for p, (text, _) in sources.items() if "_scratch[" in text] == [link_maps.ZERO_BUFFER]
    assert all(len(functions) == 3 for _, functions in sources.values())


def test_the_rollout_digest_is_what_sha1sum_prints(tmp_path):
    import random
    import subprocess

    from headroom.eval.corpus.captures import shell_traces

    shown = subprocess.run("printf %s ledger-api | sha1sum", shell=True, check=True, capture_output=True, text=True)
    assert shell_traces.digest("ledger-api") == shown.stdout[:12]
    rows = shell_traces.services(random.Random(9))
    assert [n for n, (_, _, r) in enumerate(rows) if r == 0] == [shell_traces.IDLE_AT]
    assert len({port for _, port, _ in rows}) == len(rows)


def test_the_order_export_has_one_of_each_odd_order():
    import random

    from headroom.eval.corpus.captures.pickle_disassembly import ODD_AT, orders

    rows = orders(random.Random(10))
    assert [o["status"] for o in rows].count("chargeback") == 1
    assert max(rows, key=lambda o: o["total"]) is rows[next(at for at, k in ODD_AT.items() if k == "biggest")]
    assert sum("note" in o for o in rows) == 1 and sum(o["country"] != "DE" for o in rows) == 1
    assert len({o["id"] for o in rows}) == len(rows)


def test_patch_offsets_are_distinct_multiples_of_seven(tmp_path):
    import random

    from headroom.eval.corpus.captures.patch_reports import write_trees

    offsets = write_trees(tmp_path, random.Random(11))
    firsts = [a for a, _ in offsets.values()]
    seconds = [b for _, b in offsets.values()]
    assert all(o % 7 == 0 and 100 <= o < 1000 for o in firsts + seconds)
    assert len(set(seconds)) == len(seconds) and max(firsts) < min(seconds)
    assert "\t" not in (tmp_path / "release.patch").read_text().split("\n", 2)[1]


def test_the_reflog_session_records_its_reset_and_rewording(tmp_path):
    import random
    import subprocess

    from headroom.eval.corpus.captures.git_reflogs import Session, work_session

    s = Session(tmp_path, random.Random(12))
    work_session(s)
    assert s.record["amended_ticket"].startswith("T-") and len(s.record["reset_to"]) == 40
    # The short ids were read after each commit; the reset dropped two, the rest are reachable.
    reachable = subprocess.run(["git", "rev-list", "--all", "--abbrev-commit"], cwd=tmp_path / "repo",
                               check=True, capture_output=True, text=True).stdout.split()
    assert len(set(s.subjects.values()) - set(reachable)) <= 3


# Round 13 (issue 33's thirteenth held-out round): merge conflicts, range-diffs, drawn commit
# graphs, SQLite plans and bytecode, pydoc pages, trace counts and call relationships.

def test_each_side_of_a_conflict_holds_a_value_of_its_own(tmp_path):
    import random

    from headroom.eval.corpus.captures import merge_conflicts

    rnd = random.Random(13)
    numbers = iter(rnd.sample(range(10007, 99991), 2000))
    rec = merge_conflicts.make_repo(tmp_path, rnd, numbers)
    merge_conflicts.make_env_files(tmp_path, rnd, numbers, rec)
    assert len(rec.conflicts) == len(merge_conflicts.CONFLICT_AT) + 2  # the services, gateway.ini, the .env
    assert all(len(set(sides)) == 3 for sides in rec.conflicts.values())
    assert rec.clean == f"conf/{merge_conflicts.SERVICES[merge_conflicts.CLEAN_AT]}.ini"
    theirs = (tmp_path / "repo" / "env" / "theirs.env").read_text()
    key, value = rec.merged["theirs"]
    assert f"{key}={value}\n" in theirs


def test_the_reworked_series_records_what_changed():
    import random

    from headroom.eval.corpus.captures.range_diffs import plan

    s = plan(random.Random(14))
    tickets = {name: [p.ticket for p in patches] for name, patches in s.versions.items()}
    assert s.record["dropped_v2"] in tickets["topic-v1"] and s.record["dropped_v2"] not in tickets["topic-v2"]
    assert s.record["added_v2"] in tickets["topic-v2"] and s.record["added_v2"] not in tickets["topic-v1"]
    assert s.record["dropped_v3"] not in tickets["topic-v3"]
    old, new = s.record["reworded_v3"]
    assert old in tickets["topic-v2"] and new in tickets["topic-v3"] and old not in tickets["topic-v3"]
    assert all(old != new for _, _, old, new in s.record["reworked_v2"] + s.record["reworked_v3"])


def test_the_drawn_history_leaves_one_branch_unmerged(tmp_path):
    import random

    from headroom.eval.corpus.captures.commit_graphs import Work, work_history

    w = Work(tmp_path / "repo", random.Random(15))
    work_history(w)
    branches = {b for b in w.tickets if b != "main"}
    assert len(branches) == 16 and set(w.merges) == branches - {w.record["unmerged"]}
    assert w.record["visitor_ticket"].startswith("T-") and "tagged" in w.record


def test_the_shop_database_names_indexes_without_a_convention(tmp_path):
    import random

    from headroom.eval.corpus.captures.sqlite_plans import make_database, tables

    rnd = random.Random(16)
    schema = tables(rnd)
    names = [ix for t in schema for ix in t.indexes.values()]
    assert len(names) == len(set(names)) and all(t.name not in ix for t in schema for ix in t.indexes.values())
    assert [n for n, t in enumerate(schema) if not t.indexes] == list(range(4, len(schema), 5))
    roots = make_database(tmp_path / "shop.db", schema, rnd)
    assert len(set(roots.values())) == len(roots) and max(roots[t.name] for t in schema) >= 100


def test_each_documented_module_has_one_of_each_odd_function():
    import itertools
    import random

    from headroom.eval.corpus.captures.pydoc_pages import module

    m, text = module("rates", random.Random(17), itertools.count(1013))
    assert text.count("async def ") == 1 and f"async def {m.odd['coroutine']}(" in text
    sizes = {fn: len(params) for fn, params in m.functions.items()}
    assert max(sizes, key=sizes.get) == m.odd["most_params"] and sorted(sizes.values())[-2] <= 3
    assert f"Deprecated since {m.deprecated_in};" in text and "@classmethod" in text


def test_the_nightly_job_calls_every_function_but_one_a_count_of_its_own(tmp_path):
    import random

    from headroom.eval.corpus.captures.trace_counts import MODULES, write_job

    job = write_job(tmp_path, random.Random(18))
    assert len(set(job.runs.values())) == len(job.runs)
    assert not {f"{m}.{f}" for m, f in job.never.items()} & set(job.runs)
    assert not set(job.helpers.values()) & set(job.runs) and len(job.helpers) == 6
    assert all((tmp_path / f"{m}.py").exists() for m in MODULES)
    driver = (tmp_path / "nightly.py").read_text()
    assert all(f"{m}.{f}(" not in driver for m, f in job.never.items())


# Round 14 (issue 33's fourteenth held-out round): set comparisons, layered git configuration,
# a shell's declarations, doctest transcripts, word diffs, compressed-container listings.

def test_the_inventories_differ_by_the_recorded_hosts():
    import random

    from headroom.eval.corpus.captures.set_comparisons import inventory

    inv = inventory(random.Random(19))
    assert set(inv.old) - set(inv.new) == set(inv.retired.values())
    assert set(inv.new) - set(inv.old) == set(inv.added.values())
    assert inv.unowned not in inv.owners and inv.unpatched not in inv.tickets
    assert len(set(inv.tickets.values())) == len(inv.tickets) and inv.new == sorted(inv.new)


def test_the_team_layer_sets_again_what_the_global_layer_set():
    import random

    from headroom.eval.corpus.captures.git_config_origins import write_layers

    lay = write_layers(random.Random(20))
    editors = [v for rows in lay.files.values() for _, k, v in rows if k == "editor"]
    assert len(editors) == 2 and editors[-1] == lay.record["editor_wins"] != editors[0]
    assert len(set(lay.upstreams.values())) == len(lay.upstreams) == 140


def test_the_environment_script_has_one_of_each_odd_attribute(tmp_path):
    import random

    from headroom.eval.corpus.captures.shell_declarations import write_script

    s = write_script(tmp_path, random.Random(21))
    text = (tmp_path / "deploy-env.sh").read_text()
    assert text.count("declare -ri ") == 1 and f"declare -ri {s.record['readonly']}=" in text
    assert text.count("\nexport ") == 1 and text.count("declare -l ") == 1
    assert len(set(s.ports.values())) == len(s.ports) and all(20000 <= int(p) < 32000 for p in s.ports.values())


def test_the_wrong_example_sits_on_the_recorded_line(tmp_path):
    import random

    from headroom.eval.corpus.captures.doctest_runs import write_module

    m = write_module(tmp_path, "pricing", random.Random(22))
    lines = (tmp_path / "docs" / "pricing.txt").read_text().splitlines()
    at = int(m.record["wrong_line"].split()[1])
    assert lines[at - 1] == f"    >>> {m.record['wrong_call']}"
    assert int(lines[at]) == int(m.record["wrong_got"]) + 1


def test_a_word_diff_mark_is_the_edge_of_a_word():
    from headroom.eval.corpus.captures.word_diffs import word_once

    text = "flushes every [-6841-]{+7021+} ms; 58410 and -12 and 9-]"
    assert word_once(text, "6841") and word_once(text, "7021")
    assert not word_once(text, "12") and not word_once(text, "684")


@pytest.mark.skipif(shutil.which("gzip") is None, reason="gzip")
def test_gzip_stores_the_crc_python_computes(tmp_path):
    import random
    import struct
    import zlib

    from headroom.eval.corpus.captures.compression_listings import Exports, write_gz

    ex = Exports()
    write_gz(tmp_path, random.Random(23), ex)
    name, data = next(iter(ex.gz.items()))
    packed = (tmp_path / f"{name}.gz").read_bytes()
    assert struct.unpack("<II", packed[-8:]) == (zlib.crc32(data), len(data))
    assert ex.record["random"] != ex.record["repeated"]


# Round 15 (issue 33's fifteenth held-out round): git stash lists, files merged by position, git
# notes, git work-tree lists, sqlite3 HTML tables, login history.

@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_each_odd_stash_sits_at_its_recorded_entry(tmp_path):
    import random

    from headroom.eval.corpus.captures._run import git_env, run
    from headroom.eval.corpus.captures.git_stashes import ODD, make_stashes

    where, odd_files = make_stashes(tmp_path / "repo", random.Random(24))
    for key, ref in where.items():
        message = run(["git", "log", "-1", "--format=%s", ref], cwd=tmp_path / "repo", env=git_env()).stdout
        assert message.rstrip().endswith(ODD[key]), key
    assert len(set(odd_files.values())) == len(ODD)


def test_the_merged_lists_have_one_row_per_bin_and_unique_skus():
    import random

    from headroom.eval.corpus.captures.merged_columns import lists

    bins, skus, counts = lists(random.Random(26))
    assert len(bins) == len(skus) == len(counts) == 380
    assert len(set(bins)) == len(bins) and len(set(skus)) == len(skus) and bins == sorted(bins)


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_the_notes_record_matches_what_git_attached(tmp_path):
    import random

    from headroom.eval.corpus.captures._run import git_env, run
    from headroom.eval.corpus.captures.git_notes import make_history

    review, deploys = make_history(tmp_path / "repo", random.Random(27))
    assert len(review) == len(deploys) == 8
    listed = run(["git", "notes", "list"], cwd=tmp_path / "repo", env=git_env()).stdout.splitlines()
    assert len(listed) == 8


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_each_work_tree_is_on_the_branch_recorded_for_it(tmp_path):
    import random

    from headroom.eval.corpus.captures._run import git_env, run
    from headroom.eval.corpus.captures.git_worktrees import COUNT, make_trees

    trees = make_trees(tmp_path, random.Random(29))
    assert len(trees.branch) == COUNT - 1 and len(trees.locked) == 4 and trees.detached and trees.pruned
    for name in list(trees.branch)[::40]:
        if name == trees.pruned:
            continue
        head = run(["git", "symbolic-ref", "--short", "HEAD"], cwd=tmp_path / "wt" / name, env=git_env()).stdout
        assert head.strip() == trees.branch[name]
    assert not (tmp_path / "wt" / trees.pruned).exists()


def test_the_shipment_rows_read_back_through_sqlite(tmp_path):
    import random
    import sqlite3

    from headroom.eval.corpus.captures.html_tables import ODD, shipments, write_db

    rows = shipments(random.Random(30))
    write_db(tmp_path / "s.db", rows)
    back = sqlite3.connect(tmp_path / "s.db").execute("SELECT tracking, customer, status FROM shipments").fetchall()
    assert back == [(r[1], r[2], r[5]) for r in rows]
    assert len({r[1] for r in rows}) == len({r[2] for r in rows}) == len(rows)
    assert sorted(r[5] for r in rows if r[5] in ODD) == sorted(ODD)


def test_the_wtmp_file_holds_one_record_per_login_and_logout(tmp_path):
    import random

    from headroom.eval.corpus.captures import login_history as lh

    found, where = lh.sessions(random.Random(31))
    lh.write_wtmp(tmp_path / "wtmp", found)
    data = (tmp_path / "wtmp").read_bytes()
    assert lh.UTMP.size == 384 and len(data) == lh.UTMP.size * (2 * len(found) + 1)
    assert found[where["root"]].line == "tty1"
    assert lh.duration(found[where["long"]]).startswith("1+")
    assert lh.duration(lh.Session("a", "pts/1", "h", 0, 3 * 3600 + 5 * 60)) == "03:05"


# Round 16 (issue 33's sixteenth held-out round): git bisect transcripts, pytest collection trees,
# PostgreSQL WAL records, submodule listings, account-file checks, branch-membership matrices.

@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_each_check_breaks_at_the_commit_recorded_for_it(tmp_path):
    import random

    from headroom.eval.corpus.captures import git_bisects as gb
    from headroom.eval.corpus.captures._run import git_env, run

    commits, breaks = gb.history(random.Random(32))
    repo = gb.make_repo(tmp_path, commits, breaks)
    assert len({c.author for c in commits}) == len({c.ticket for c in commits}) == gb.COUNT
    for check, n in breaks.items():
        # The check passes on the commit before the recorded one and fails from it on.
        for ref, fails in ((f"main~{gb.COUNT - n}", False), (f"main~{gb.COUNT - 1 - n}", True)):
            run(["git", "checkout", "-q", ref], cwd=repo, env=git_env())
            assert (run(["../check.sh", check], cwd=repo, env=git_env(), check=False).returncode != 0) is fails
    first = datetime.fromtimestamp(gb.START, UTC)
    assert gb.authored(0) == first.strftime("%a %b ") + str(first.day) + first.strftime(" %H:%M:%S %Y")


def test_the_planned_suite_names_every_class_and_test_once(tmp_path):
    import ast
    import random

    from headroom.eval.corpus.captures import pytest_collections as pc

    suite = pc.plan_suite(random.Random(33))
    pc.write_suite(tmp_path, suite)
    classes = [c for m in suite.classes.values() for c in m]
    tests = [t for m in suite.classes.values() for ts in m.values() for t in ts] + list(suite.loose.values())
    assert len(set(classes)) == len(classes) and len(set(tests)) == len(tests)
    module = next(iter(suite.classes))
    tree = ast.parse((tmp_path / module).read_text())
    assert [n.name for n in tree.body if isinstance(n, ast.ClassDef)] == list(suite.classes[module])
    assert suite.param_test in tests


def test_the_wal_workload_touches_each_table_once():
    import random

    from headroom.eval.corpus.captures import wal_records as wr

    names, odd = wr.tables(random.Random(34))
    setup, work = wr.scripts(names, odd)
    assert len(set(names)) == wr.COUNT and set(odd) == set(wr.ODD) == set(wr.WORDINGS)
    assert setup.rstrip().endswith("CHECKPOINT;")
    for t in names:
        assert sum(f" {t} " in f" {line.replace(';', ' ')} " for line in work.splitlines()) == 1, t
    assert f"pg_relation_filenode('{odd['delete']}')" in wr.filenode_sql(odd)


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_a_library_is_tagged_on_its_newest_commit(tmp_path):
    from headroom.eval.corpus.captures import git_submodules as gs
    from headroom.eval.corpus.captures._run import git_env, run

    gs.make_library(tmp_path / "lib", ["one", "two", "three"], "v1.2.3")
    head = gs.head_of(tmp_path / "lib")
    tagged = run(["git", "rev-list", "-n1", "v1.2.3"], cwd=tmp_path / "lib", env=git_env()).stdout.strip()
    assert head == tagged and len(head) == 40
    assert run(["git", "log", "-1", "--format=%s"], cwd=tmp_path / "lib", env=git_env()).stdout.strip() == "three"


def test_the_account_files_hold_each_odd_entry_as_recorded(tmp_path):
    import random

    from headroom.eval.corpus.captures import account_checks as ac

    acc = ac.Accounts()
    rnd = random.Random(35)
    ac.write_users(tmp_path, rnd, acc)
    ac.write_groups(tmp_path, rnd, acc)
    passwd = (tmp_path / "passwd").read_text().splitlines()
    shadow = {ln.split(":")[0] for ln in (tmp_path / "shadow").read_text().splitlines()}
    by_name = {ln.split(":")[0]: ln.split(":") for ln in passwd}
    u = acc.odd_user
    assert by_name[u["shell"]][6] == acc.missing_shell and by_name[u["group"]][3] == acc.missing_gid
    assert len(by_name[u["short"]]) == 4 and not by_name[u["uid"]][2].isdigit()
    assert u["stale"] in shadow and u["stale"] not in by_name and u["shadow"] not in shadow
    groups = {ln.split(":")[0] for ln in (tmp_path / "group").read_text().splitlines()}
    assert acc.odd_group["orphan"] not in groups and acc.odd_group["gid"] in groups


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_the_branches_fork_where_the_history_says(tmp_path):
    import random

    from headroom.eval.corpus.captures import branch_matrices as bm
    from headroom.eval.corpus.captures._run import git_env, run

    h = bm.plan(random.Random(36))
    repo = bm.make_repo(tmp_path, h)

    def subject(ref: str) -> str:
        return run(["git", "log", "-1", "--format=%s", ref], cwd=repo, env=git_env()).stdout.strip()

    for topic in sorted(set(h.own) - {h.child}):
        base = run(["git", "merge-base", "main", topic], cwd=repo, env=git_env()).stdout.strip()
        expected = h.own[topic][-1] if topic == h.merged else h.main[h.fork[topic]]
        assert subject(base) == expected, topic
    shared = run(["git", "merge-base", h.parent, h.child], cwd=repo, env=git_env()).stdout.strip()
    assert subject(shared) == h.own[h.parent][h.shared - 1]


def test_each_broken_order_fails_the_schema_where_the_record_says():
    import random

    import jsonschema

    from headroom.eval.corpus.captures import schema_errors as se

    validator = jsonschema.Draft202012Validator(se.SCHEMA["items"])
    for how in se.BREAKS:
        o = se.order(random.Random(37), "ord-12345")
        assert not list(validator.iter_errors(o)), how  # a routine order passes
        se.break_order(o, how)
        errors = list(validator.iter_errors(o))
        assert len(errors) == 1, how
        if se.BREAKS[how] is not None:  # a field's error sits at that field's path
            key = se.BREAKS[how][0]
            assert list(errors[0].path) == [key] and se.spot(3, key) == f"instance[3]['{key}']"


def test_the_font_maps_and_sizes_each_glyph_as_recorded(tmp_path):
    import random

    pytest.importorskip("fontTools")
    from fontTools.ttLib import TTFont

    from headroom.eval.corpus.captures import font_tables as ft

    record = ft.build_font(tmp_path / "f.ttf", random.Random(38))
    font = TTFont(tmp_path / "f.ttf")
    assert font.getBestCmap() == record.glyph
    assert [t.platformID for t in font["cmap"].tables] == [3]
    assert {n: w for n, (w, _) in font["hmtx"].metrics.items() if n != ".notdef"} == record.width
    assert ft.glyph_name(0x20AC) == "Euro" and ft.glyph_name(0x20BD) == "uni20BD"


def test_orphans_are_the_rows_a_join_finds_without_a_parent(tmp_path):
    import sqlite3

    from headroom.eval.corpus.captures import fk_checks as fk

    db = sqlite3.connect(tmp_path / "t.db")
    db.executescript("CREATE TABLE carriers (id INTEGER PRIMARY KEY);"
                     "CREATE TABLE deliveries (id INTEGER PRIMARY KEY, carrier_id INTEGER REFERENCES carriers(id));"
                     "INSERT INTO carriers VALUES (1), (2);"
                     "INSERT INTO deliveries VALUES (10, 1), (11, 7), (12, NULL), (13, 2);")
    db.commit()
    db.close()
    assert fk.orphans(tmp_path / "t.db", "deliveries", "carrier_id", "carriers") == [11]


def test_each_odd_rule_is_on_the_line_the_record_names(tmp_path):
    import random

    from headroom.eval.corpus.captures import ignore_rules as ig

    (tmp_path / ".git" / "info").mkdir(parents=True)
    rules = ig.write_rules(tmp_path, random.Random(39))
    assert set(rules) == {path for _, _, path, _ in ig.ODD}
    for rule in rules.values():
        where, line, pattern = rule.split(":", 2)
        assert (tmp_path / where).read_text().splitlines()[int(line) - 1] == pattern
    paths = ig.listed_paths(random.Random(39))
    assert len(paths) == len(set(paths)) and all(p in paths for p in rules)


def test_redis_stores_an_acl_password_as_its_sha256():
    from headroom.eval.corpus.captures import acl_users as au

    assert au.stored_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja")
def test_the_build_is_disturbed_as_recorded(tmp_path):
    import random

    from headroom.eval.corpus.captures import ninja_explain as nx

    record = nx.write_build(tmp_path, random.Random(40))
    nx.settle_and_disturb(tmp_path, record)
    built = int(nx.mtime_ns(tmp_path, "bin/shopd"))
    assert all(int(nx.mtime_ns(tmp_path, s)) > built for s in [*record.edited, record.private_header])
    assert all(not (tmp_path / o).exists() for o in record.deleted)
    assert len({nx.mtime_ns(tmp_path, s) for s in record.edited}) == len(record.edited)


def test_tc_classes_record_each_odd_leaf_once_in_hexadecimal():
    import random

    from headroom.eval.corpus.captures import tc_classes as tc

    assert tc.classid(0x1a07) == "1:1a07" and tc.classid(16) == "1:10"
    tree = tc.plan(random.Random(41))
    assert set(tree.odd) == set(tc.ODD) and len(set(tree.odd.values())) == len(tc.ODD)
    for what, cid in tree.odd.items():
        (line,) = [ln for ln in tree.lines if f" classid {cid} " in ln]
        assert line.endswith(tc.ODD[what])
    assert tc.script(tree).count("tc class add") == len(tree.lines)


def test_pip_tags_rank_this_interpreter_and_a_target_by_packaging():
    from packaging import tags

    from headroom.eval.corpus.captures import pip_tags as pt

    here = pt.ranked_tags(None)
    assert here[0] == str(next(iter(tags.sys_tags()))) and len(here) == len(set(here))
    target = pt.ranked_tags((3, 12))
    assert target[0].startswith("cp312-cp312-") and target[-1] == "py30-none-any"


def test_dwarf_dies_record_what_the_c_file_declares(tmp_path):
    import random

    from headroom.eval.corpus.captures import dwarf_dies as dd

    decls = dd.write_source(tmp_path / "shop.c", random.Random(42))
    text = (tmp_path / "shop.c").read_text()
    assert decls.values and all(f"{name} = {v}," in text or f"{name} = {v} " in text
                                for name, v in decls.values.items())
    assert all(f"unsigned {m} : {w};" in text for m, (_, w) in decls.bitfields.items())
    assert all(f"long {fn}({', '.join(f'long {p}' for p in ps)})" in text for fn, ps in decls.params.items())


def test_rust_mir_records_the_constants_and_names_the_crate_holds(tmp_path):
    import random

    from headroom.eval.corpus.captures import rust_mir as rm

    crate = rm.write_crate(tmp_path / "fees.rs", random.Random(43))
    text = (tmp_path / "fees.rs").read_text()
    assert all(f"wrapping_add({v}_u32)" in text for v in crate.adds.values())
    assert all(f"wrapping_mul({v})" in text for v in crate.multipliers.values())
    assert len(set(crate.multipliers.values())) == len(crate.multipliers)
    assert all(f"{p}: u32" in text for p in crate.params.values())


def test_jfr_events_name_each_odd_order_in_one_event():
    import random

    from headroom.eval.corpus.captures import jfr_events as je

    p = je.plan(random.Random(44))
    checked_out = {f["order"] for kind, f in p.events if kind == "Checkout"}
    assert p.refunds and not set(p.refunds) & checked_out and p.hold[0] not in checked_out
    assert p.big in checked_out and sum(p.counts().values()) == len(p.events)
    assert je.java_source(p).count("e.commit();") == len(p.events)


def test_nginx_config_writes_each_odd_directive_into_the_recorded_site_file(tmp_path):
    import random

    from headroom.eval.corpus.captures import nginx_config as nc

    tree = nc.plan(random.Random(45))
    nc.write_tree(tmp_path, tree)
    for what, site in tree.odd.items():
        text = (tmp_path / nc.site_file(tree, site)).read_text()
        assert nc.ODD[what] in text and f"server_name {site.name};" in text
    files = "".join(p.read_text() for p in (tmp_path / "conf" / "sites").iterdir())
    assert f"server {tree.backup} backup;" in files and f"server {tree.drained} down;" in files


def test_redis_streams_plan_keeps_each_odd_entry_pending_in_billing_alone():
    import random

    from headroom.eval.corpus.captures import redis_streams as rs

    p = rs.plan(random.Random(46))
    ids = [e.id for e in p.entries]
    assert len(set(ids)) == len(ids) and all(i.endswith("-0") and len(i) == 15 for i in ids)
    assert len({e.amount for e in p.entries}) == len(p.entries)
    anywhere = set().union(*p.pending.values())
    assert not set(p.deleted) & anywhere and len(p.deleted) == 2
    for eid in p.odd.values():
        assert eid in p.pending["billing"] and eid not in p.pending["shipping"] | p.pending["audit"]
    assert len(set(p.odd.values())) == 3 and sum(e.region == "is-reykjavik" for e in p.entries) == 1
    for group, batches in p.reads.items():
        assert sum(size for _, size in batches) == len(ids)
        assert {c for c, _ in batches} == set(rs.GROUPS[group])


def test_pg_restore_toc_writes_every_object_it_asks_the_catalogue_about():
    import random

    from headroom.eval.corpus.captures import pg_restore_toc as pr

    rnd = random.Random(47)
    tables = pr.plan(rnd)
    asked = pr.pick(tables, rnd)
    ddl = pr.ddl(tables, "fulfil.fulfil_summary", "ledger.ledger_touch")
    for how, name in asked.values():
        bare = name.split(".")[-1]
        if how == "con":
            schema, table = name.split(".")[0], bare.removesuffix("_parent_id_fkey")
            assert f"CREATE TABLE {schema}.{table} (" in ddl and "parent_id bigint REFERENCES" in ddl
        else:
            assert f" {name} " in ddl or f" {bare} " in ddl or f" {name}(" in ddl, name
    sql = pr.oid_sql(asked)
    assert sql.count("SELECT '") == len(asked) and "OWNER TO analyst" in ddl and "OWNER TO etl" in ddl


def test_ubsan_reports_record_each_odd_body_on_its_line():
    import random

    from headroom.eval.corpus.captures import ubsan_reports as ub

    prog = ub.write_program(random.Random(48))
    lines = prog.text.splitlines()
    for what, f in prog.odd.items():
        assert lines[prog.line[f] - 1] == f"int {f}(int x) {{ {ub.ODD[what][0]} }}"
    for f, ops in prog.overflow.items():
        x, op, c = ops.split()
        value = {"+": int(x) + int(c), "-": int(x) - int(c), "*": int(x) * int(c)}[op]
        assert not -2**31 <= value < 2**31, (f, ops)
        assert f"    s ^= (unsigned){f}({x});" in lines


def test_esbuild_analyze_plan_imports_each_private_leaf_once():
    import random

    from headroom.eval.corpus.captures import esbuild_analyze as ea

    site = ea.plan(random.Random(49))
    imported = [d for deps in site.imports.values() for d in deps if d.startswith("src/parts/")]
    assert len(imported) == len(set(imported)) == ea.PRIVATE * len(ea.PAGES)
    for page, big in site.big.items():
        assert big.removeprefix("src/parts/").removesuffix(".js") in site.private[page][ea.PRIVATE // 2:]
        assert big not in site.imports and "const TABLE" in ea.module_text(site, big, random.Random(1))


def test_meson_setup_header_and_build_file_agree_with_the_record():
    import ctypes
    import random

    from headroom.eval.corpus.captures import meson_setup as ms

    rnd = random.Random(50)
    head = ms.plan(rnd)
    text = head.text()
    for name, members in head.structs.items():
        assert f"struct {name} {{" in text
        size, align = head.layout(name)
        assert size % align == 0 and size >= sum(ctypes.sizeof(ms.CTYPES[t]) * n for t, _, n in members)
    build, absent = ms.meson_build(head, rnd)
    assert f"has_member('struct {absent['struct']}', '{absent['member']}'" in build
    assert absent["member"] not in {m for _, m, _ in head.structs[absent["struct"]]}


def test_radon_metrics_write_the_if_counts_they_record():
    import random

    from headroom.eval.corpus.captures import radon_metrics as rm

    rnd = random.Random(51)
    pkg = rm.plan(rnd)
    names = [f for fs in pkg.modules.values() for f, _ in fs]
    assert len(names) == len(set(names)) and len(pkg.odd) == len(rm.ODD_IFS)
    for path, functions in pkg.modules.items():
        blocks = pkg.text(path, rnd).split("\n\ndef ")[1:]
        assert [(b.split("(")[0], b.count("    if x > ")) for b in blocks] == functions
    assert max(len(fs) for fs in pkg.modules.values()) == len(pkg.modules[pkg.longest])
    assert max(pkg.comments.values()) == pkg.comments[pkg.wordy]


def test_csv_stats_record_finds_each_planted_value_and_the_one_blank_column():
    import random

    from headroom.eval.corpus.captures import csv_stats as cs

    cols, rows, record = cs.plan(random.Random(52))
    found = cs.facts(cols, rows)
    assert found["blank"] == ["hold_reason"] and len(record["odd_max"]) == 6
    for col, value in record["odd_max"].items():
        # The planted value is the column's maximum by the reader, far above the rest.
        assert found["max"][col] == value
        assert float(value) > 5 * max(float(r[col]) for r in rows if r[col] != value)
    assert cs._plain("5380.10") == "5380.1" and cs._plain("12.00") == "12" and cs._plain("45") == "45"


def test_ansible_inventory_places_each_host_in_one_group_and_writes_the_odd_vars():
    import random

    from headroom.eval.corpus.captures import ansible_inventory as ai

    inv = ai.plan(random.Random(53))
    hosts = [h for hs in inv.hosts.values() for h in hs]
    assert len(hosts) == len(set(hosts)) and len(inv.hosts[inv.odd["lone"]]) == 1
    ini = inv.ini()
    assert f"{inv.odd['port']} ansible_host=" in ini and "ansible_port=2222" in ini
    assert ini.count("ansible_user=breakglass") == 1 and ini.count("backup_window=03:45") == 1
    # The tree's "|--" may precede a name; a longer name holding it must not pass.
    assert ai.once_in_tree("  |  |--api-ap-116\n", "api-ap-116")
    assert not ai.once_in_tree("  |--api-ap-1160\n", "api-ap-116")


def test_gpt_partitions_pack_entries_that_read_back_with_struct(tmp_path):
    import random
    import struct
    import uuid
    import zlib

    from headroom.eval.corpus.captures import gpt_partitions as gp

    parts, odd = gp.plan(random.Random(54))
    disk = uuid.UUID(int=7, version=4)
    gp.write_image(tmp_path / "d.img", parts, disk)
    with (tmp_path / "d.img").open("rb") as fh:
        fh.seek(gp.SECTOR)
        head = fh.read(92)
        fh.seek(2 * gp.SECTOR)
        array = fh.read(gp.ENTRIES * 128)
    assert head[:8] == b"EFI PART" and struct.unpack_from("<I", head, 88)[0] == zlib.crc32(array)
    crc = struct.unpack_from("<I", head, 16)[0]
    assert crc == zlib.crc32(head[:16] + b"\0\0\0\0" + head[20:])
    first = array[:128]
    assert uuid.UUID(bytes_le=first[16:32]) == parts[0].guid
    assert struct.unpack_from("<QQ", first, 32) == (parts[0].first, parts[0].last)
    sizes = {p.name: p.last - p.first + 1 for p in parts}
    assert max(sizes, key=sizes.get) == odd["large"] and min(sizes, key=sizes.get) == odd["small"]


def test_deprecated_apis_give_each_rare_api_to_one_class():
    import random

    from headroom.eval.corpus.captures import deprecated_apis as da

    calls = da.plan(random.Random(55))
    rare = [c for c, uses in calls.items() if uses[0] < 0]
    assert len(rare) == len(da.RARE) and len({calls[c][0] for c in rare}) == len(da.RARE)
    for c in rare:
        expr = da.RARE[-1 - calls[c][0]][0]
        assert expr in da.source(c, calls[c])
        assert all(expr not in da.source(o, u) for o, u in calls.items() if o != c)


def test_namespace_listing_plans_one_crowd_and_one_mount_namespace(tmp_path):
    import random

    from headroom.eval.corpus.captures import namespace_listing as nl

    groups, odd = nl.plan(random.Random(56))
    names = [m for _, ms in groups for m in ms]
    assert len(names) == len(set(names))
    sizes = {ms[0]: len(ms) for f, ms in groups if f == "-n"}
    assert max(sizes, key=sizes.get) == odd["crowd"] and sorted(sizes.values())[-2] < 5
    assert [ms for f, ms in groups if "-m" in f] == [[odd["mount"]]]
    text = nl.script(groups, tmp_path / "bin", tmp_path / "out")
    # The group's first worker is exec'd last, so it keeps the lowest PID of its namespace.
    crowd = next(line for line in text.splitlines() if f"exec ./{odd['crowd']} 600" in line)
    assert crowd.startswith("unshare -n -- sh -c '") and crowd.count(" 600 & ") == 4


def test_tmux_bindings_write_one_binding_a_key_with_its_note():
    import random

    from headroom.eval.corpus.captures import tmux_bindings as tb

    bindings = tb.plan(random.Random(57))
    keys = [k for k, _, _ in bindings]
    assert len(keys) == len(set(keys)) == 48 and len({s for _, s, _ in bindings}) == 48
    conf = tb.config(bindings)
    key, script, note = bindings[10]
    assert f'bind-key -N "{note}" -T prefix {key} run-shell "~/ops/{script}.sh"' in conf.splitlines()


def test_commit_signatures_plan_one_commit_for_each_odd_signer():
    import random

    from headroom.eval.corpus.captures import commit_signatures as cs

    hist = cs.plan(random.Random(61))
    subjects = [s for s, _ in hist.commits]
    assert len(subjects) == len(set(subjects)) == 120
    signers = [who for _, who in hist.commits]
    # each odd signer (and the one unsigned commit) appears once, in the middle third
    assert signers.count("") == 1 and all(signers.count(n) == 1 for n in cs.ODD_SIGNERS.values())
    assert all(40 <= i < 80 for i in hist.odd.values())
    assert hist.commits[hist.odd["revoked"]][1] == cs.ODD_SIGNERS["revoked"]
    assert cs._email("Omar Haddad") == "omar@shop.example"


def test_logical_decoding_changes_each_loaded_order_at_most_once():
    import random

    from headroom.eval.corpus.captures import logical_decoding as ld

    wl = ld.plan(random.Random(62))
    touched = [s.split("'")[-2] for t in wl.transactions for s in t if "WHERE code" in s]
    touched += list(wl.refunds)
    assert len(touched) == len(set(touched)) and set(touched) <= set(wl.loaded)
    assert wl.held in touched and wl.deleted in touched and not set(wl.created) & set(wl.loaded)
    amounts = [*wl.loaded.values(), *wl.created.values(), *wl.refunds.values()]
    assert len(amounts) == len(set(amounts)) and all(a.count(".") == 1 and len(a.split(".")[1]) == 2 for a in amounts)
    assert ld._amount(100705) == "1007.05"


def test_path_resolution_plan_keeps_targets_whole_and_odd_services_apart():
    import random

    from headroom.eval.corpus.captures import path_resolution as pr

    tree = pr.plan(random.Random(63))
    rels = list(tree.releases.values())
    assert len(rels) == len(set(rels)) == len(pr.SERVICES)
    assert not any(a != b and a in b for a in rels for b in rels)
    odd = [tree.dangling, *tree.odd_mode.values(), *tree.odd_owner.values(), *tree.bin_links]
    assert len(odd) == len(set(odd)) and all(s in pr.SERVICES[10:30] for s in odd)
    assert tree.path("geo") == "srv/geo/current/bin/geod"


def test_redis_cluster_hands_out_every_slot_once():
    import random

    from headroom.eval.corpus.captures import redis_cluster as rc

    lay = rc.plan(random.Random(64))
    slots = sorted(s for rs in lay.ranges.values() for lo, hi in rs for s in range(lo, hi + 1))
    assert slots == list(range(rc.SLOTS))
    assert lay.ranges[lay.empty] == [] and all(rs for h, rs in lay.ranges.items() if h != lay.empty)
    assert lay.stopped != lay.empty and not any(a != b and a in b for a in rc.HOSTS for b in rc.HOSTS)


def test_file_capabilities_unpack_the_kernel_layout_and_give_each_odd_set_once():
    import random
    import struct

    from headroom.eval.corpus.captures import file_capabilities as fc

    # VFS_CAP_REVISION_2 with the effective flag; setuid (7) and setgid (6) permitted, net_raw inheritable
    raw = struct.pack("<5I", 0x02000001, 1 << 7 | 1 << 6, 1 << 13, 0, 0)
    assert fc.unpack_caps(raw) == (0xC0, 1 << 13)
    paths = fc.plan(random.Random(65))
    assert len(paths) == len(set(paths)) and not any(a != b and b.startswith(a) for a in paths for b in paths)
    caps = fc.assign(random.Random(66), paths)
    third = len(paths) // 3
    assert all(third <= paths.index(p) < 2 * third for p, text in caps.items() if text not in fc.COMMON)
    values = list(caps.values())
    assert all(values.count(text) == 1 for text, _ in fc.ODD.values()) and values.count(fc.INHERITABLE_ONLY) == 1


def test_query_statistics_runs_each_statement_its_own_number_of_times():
    import random

    from headroom.eval.corpus.captures import query_statistics as qs

    calls = qs.plan(random.Random(66))
    assert len(set(calls.values())) == len(calls) == len(qs.TABLES) * len(qs.SHAPES)
    assert not any(a != b and a in b for a in calls for b in calls)
    assert not any(ch.isdigit() or ch == "'" for s in calls for ch in s)  # no literal for the extension to replace
    lines = qs.script(calls, random.Random(1)).splitlines()
    assert all(lines.count(f"{s};") == n for s, n in calls.items())


def test_link_errors_call_each_missing_symbol_once_on_its_recorded_line():
    import random

    from headroom.eval.corpus.captures import link_errors as le

    prog = le.plan(random.Random(71))
    calls = [s for fs in prog.modules.values() for f in fs for s in f.calls]
    assert len(calls) == len(set(calls)) and all(s.startswith("fx_") for s in calls)
    texts = {p: le.source_text(prog, p).splitlines() for p in prog.modules}
    for path, fs in prog.modules.items():
        for f in fs:
            assert all(texts[path][f.lines[s] - 1] == f"    total += {s}(total);" for s in f.calls)
    # the hub calls far more missing symbols than any other function
    others = [len(f.calls) for fs in prog.modules.values() for f in fs if f.name != prog.hub]
    assert max(others) < le.HUB_CALLS
    # each duplicate is written in two modules, its first one on the line the record names
    for name, (first, later) in prog.dups.items():
        assert texts[first][prog.first_line[name] - 1] == f"long {name}(long x) {{"
        assert sum(line.startswith(f"long {name}(") for line in texts[later]) == 1


def test_django_migrations_plan_keeps_partial_targets_past_every_dependency(tmp_path):
    import random
    import sqlite3

    from headroom.eval.corpus.captures import django_migrations as dm

    pr = dm.plan(random.Random(72))
    assert max(pr.migrations.values(), key=len) == pr.migrations[pr.longest]
    needed = {}
    for app, name in pr.depends.values():
        needed[app] = max(needed.get(app, 0), pr.migrations[app].index(name))
    assert pr.untouched not in needed  # nothing pulls the untouched app's migrations in
    for app in pr.partial:  # no dependency reaches past a partial app's target
        assert needed.get(app, 0) < pr.migrations[app].index(pr.targets[app]) < len(pr.migrations[app]) - 1
    names = [n for ms in pr.migrations.values() for n in ms if n != "0001_initial"]
    assert len(names) == len(set(names))
    assert "dependencies = [('carts', '0001_initial')" in dm.migration_text(pr, "carts", 1)
    with sqlite3.connect(tmp_path / "db") as conn:
        conn.execute("CREATE TABLE django_migrations (id INTEGER PRIMARY KEY, app TEXT, name TEXT, applied TEXT)")
        conn.executemany("INSERT INTO django_migrations (app, name, applied) VALUES (?, ?, '')",
                         [("carts", "0001_initial"), ("pricing", "0001_initial"), ("carts", "0002_x")])
    assert dm.applied(tmp_path / "db") == {"carts": ["0001_initial", "0002_x"], "pricing": ["0001_initial"]}


def test_redis_functions_give_each_odd_flag_to_one_function_and_no_library_name_to_a_description():
    import random

    from headroom.eval.corpus.captures import redis_functions as rf

    reg = rf.plan(random.Random(73))
    fns = [f for lib in reg.libs.values() for f in lib]
    assert len({f.name for f in fns}) == len(fns)
    assert all(sum(flag in f.flags for f in fns) == 1 for flag in rf.ODD_FLAGS)
    assert [f.name for f in fns if f.description is None] == [reg.silent]
    assert all(lib not in (f.description or "") and lib not in f.name for lib in rf.LIBS for f in fns)
    sizes = sorted(len(v) for v in reg.libs.values())
    assert len(reg.libs[reg.busiest]) == sizes[-1] > sizes[-2]
    code = reg.code(reg.busiest)
    assert code.startswith(f"#!lua name={reg.busiest}\n") and code.count("redis.register_function") == rf.BUSIEST
    assert rf._pairs([b"name", b"x", b"flags", []]) == {"name": b"x", "flags": []}


def test_parquet_inspect_plan_gives_each_odd_codec_and_type_to_one_column():
    import random

    from headroom.eval.corpus.captures import parquet_inspect as pi

    t = pi.plan(random.Random(74))
    codecs, kinds = list(t.codecs.values()), list(t.kinds.values())
    assert all(codecs.count(c) == 1 for c in pi.ODD_CODECS) and all(kinds.count(k) == 1 for k in pi.ODD_TYPES)
    assert all(len(v) == pi.ROWS for v in t.values.values())
    assert {n: v.count(None) for n, v in t.values.items() if None in v} == t.nullable
    # no code stands in two columns: each string column's values carry a prefix of its own
    prefixes = {n: {v.split("-")[0] for v in vals if v is not None} for n, vals in t.values.items()
                if t.kinds[n] == "string"}
    assert all(len(p) == 1 for p in prefixes.values())
    assert len({next(iter(p)) for p in prefixes.values()}) == len(prefixes)


def test_fsck_report_damages_the_odd_messages_once_in_the_middle(tmp_path):
    import random

    from headroom.eval.corpus.captures import fsck_report as fr

    paths = fr.layout(random.Random(75), tmp_path)
    assert len(paths) == fr.QUEUES * (fr.PER_QUEUE + 1)
    assert (tmp_path / paths[0].lstrip("/")).stat().st_mtime == fr.MTIME
    inodes = {p: 20 + i for i, p in enumerate(paths)}  # as debugfs would number them
    d = fr.plan(random.Random(76), paths, inodes)
    odd = [d.zero_mode, d.dtime, d.unlinked, *(p for p, n in d.links.items() if n in fr.ODD_LINKS)]
    assert len(set(odd)) == len(odd) == len(fr.ODD_LINKS) + 3
    messages = sorted((p for p in paths if p.endswith(".eml")), key=inodes.__getitem__)
    third = len(messages) // 3
    assert all(third <= messages.index(p) < 2 * third for p in odd)
    assert sorted(n for n in d.links.values() if n > 6) == sorted(fr.ODD_LINKS)
    assert not set(d.cleared) & set(d.links) and d.bad_link.endswith("/archive")
    cmds = d.commands()
    assert f"unlink {d.unlinked}" in cmds and f"sif {d.zero_mode} mode 0" in cmds and len(cmds) == len(d.links) + 24


def test_fstab_verify_plan_gives_each_odd_type_and_option_to_one_entry():
    import random

    from headroom.eval.corpus.captures import fstab_verify as fv

    t = fv.plan(random.Random(77))
    targets = [e.target for e in t.entries]
    assert len(targets) == len(set(targets)) and all(t.startswith(fv.ROOT + "/") for t in targets)
    assert all(sum(e.fstype == x for e in t.entries) == 1 for x in fv.ODD_TYPES)
    for option in [*fv.ODD_USER, *fv.ODD_VFS]:
        assert sum(option in e.options for e in t.entries) == 1
    lines = [ln for ln in t.text().splitlines() if not ln.startswith("#")]
    assert len(lines) == len(t.entries) and all(len(ln.split()) == 6 for ln in lines)
    assert len(t.labelled) == 4 and all(not e.source.startswith("UUID=") for e in t.labelled)
    assert "ext4" in fv.kernel_types() or "proc" in fv.kernel_types()


# Issue 33's twenty-third round: the captures' own records, checked on small inputs.

def test_push_report_check_reads_the_remote_against_the_record():
    from headroom.eval.corpus.captures import push_report

    p = push_report.Push(frozen={"feature/a-1": "SHOP-1"}, updated={"feature/b-2": "aaaaaaaaaaaa"},
                         stale=["feature/c-3"], deleted_branch="feature/d-4", deleted_tag="v0.1.4")
    tips = {"refs/heads/feature/b-2": "bbbbbbbbbbbb", "refs/heads/feature/c-3": "cccccccccccc"}
    push_report.check(p, tips)
    # a frozen ref that reached the remote, or an update that did not, breaks the record
    with pytest.raises(AssertionError):
        push_report.check(p, {**tips, "refs/heads/feature/a-1": "dddddddddddd"})
    with pytest.raises(AssertionError):
        push_report.check(p, {**tips, "refs/heads/feature/b-2": "aaaaaaaaaaaa"})


def test_classifier_report_plants_a_perfect_and_an_unpredicted_category():
    import random

    from headroom.eval.corpus.captures import classifier_report

    assert classifier_report.recalls([("a", "a"), ("a", "b"), ("b", "b")]) == {"a": 0.5, "b": 1.0}
    rows, best, unseen = classifier_report.plan(random.Random(1))
    rec = classifier_report.recalls(rows)
    assert rec[best] == 1.0 and max(v for c, v in rec.items() if c != best) <= 0.96
    assert unseen not in {p for _, p in rows} and rec[unseen] == 0.0


def test_module_tree_plan_has_one_head_of_each_odd_kind():
    import random

    from headroom.eval.corpus.captures import module_tree

    spec, odd = module_tree.plan(random.Random(1))
    assert len(set(odd.values())) == 5
    assert [n for n, h in spec.items() if h["act"] == "gelu"] == [odd["gelu"]]
    assert [n for n, h in spec.items() if h["norm"]] == [odd["norm"]]
    assert max(spec, key=lambda n: spec[n]["outputs"]) == odd["wide"]
    assert len({h["hidden"] for h in spec.values()}) == len(spec)


@pytest.mark.skipif(shutil.which("mkfs.ext4") is None and not Path("/sbin/mkfs.ext4").exists(), reason="e2fsprogs")
def test_blkid_probe_reads_uuid_and_label_from_the_ext_superblock(tmp_path):
    from headroom.eval.corpus.captures import blkid_probe
    from headroom.eval.corpus.captures._run import run

    img = tmp_path / "x.img"
    with img.open("wb") as f:
        f.truncate(2 << 20)
    uid = "0f4e2d1c-3b5a-4978-8695-a4b3c2d1e0f9"
    run(["mkfs.ext4", "-q", "-F", "-L", "amber-birch", "-U", uid, str(img)], env=blkid_probe.ENV)
    assert blkid_probe.ext_superblock(img) == (uid, "amber-birch")


def test_json_patch_diff_record_matches_the_second_export():
    import random

    from headroom.eval.corpus.captures import json_patch_diff

    rnd = random.Random(1)
    old = json_patch_diff.catalogue(rnd)
    new, rec = json_patch_diff.edit(rnd, old)
    for sku, (before, after) in rec["price"].items():
        assert old["products"][sku]["price"] == before and new["products"][sku]["price"] == after
    assert rec["gone"] not in new["products"] and rec["added"] not in old["products"]
    assert old["products"][rec["flagged"]]["discontinued"] and "discontinued" not in new["products"][rec["flagged"]]
    assert new["products"][rec["tagged"]]["tags"][-1] == "clearance"


def test_addr_symbolize_records_each_functions_first_statement(tmp_path):
    import random

    from headroom.eval.corpus.captures import addr_symbolize

    files = addr_symbolize.plan(random.Random(1))
    where = addr_symbolize.write(tmp_path, files, random.Random(2))
    assert len(where) == len(addr_symbolize.FILES) * len(addr_symbolize.VERBS)
    for fn, (file, line) in where.items():
        lines = (tmp_path / file).read_text().split("\n")
        assert lines[line - 3] == f"int {fn}(int n)" and lines[line - 1].startswith("    int acc = n * ")


# Issue 33's twenty-fourth round: the captures' own records, checked on small inputs.

def test_drop_dependents_plan_names_each_key_after_another_word_and_one_view_per_base():
    import random

    from headroom.eval.corpus.captures import drop_dependents

    p = drop_dependents.plan(random.Random(1))
    for table, fk in p["tables"].items():  # the key never names its own table
        assert table.split("_")[0] not in fk
    assert len(set(p["tables"].values())) == len(p["tables"])
    assert set(p["on_view"].values()) <= set(p["views"]) and len(set(p["on_view"].values())) == len(p["on_view"])
    text = drop_dependents.ddl(p, random.Random(2))
    # a view on a view is created after the view it reads
    for v, base in p["on_view"].items():
        assert text.index(f"CREATE VIEW {base} ") < text.index(f"CREATE VIEW {v} ")


def test_exception_groups_plan_gives_each_odd_type_to_one_supplier_in_the_middle():
    import random

    from headroom.eval.corpus.captures import exception_groups

    p = exception_groups.plan(random.Random(2402))
    sups = [s for r in exception_groups.REGIONS for s in p[r]]
    assert len({s["name"] for s in sups}) == len(sups)
    for kind in exception_groups.ODD:
        (only,) = [s for s in sups if s["type"] == kind]
        assert only in [s for r in exception_groups.REGIONS[3:7] for s in p[r]]
    messages = [s["message"] for s in sups if s["type"]]
    assert len(set(messages)) == len(messages)
    script = exception_groups.script(p)
    assert all(script.count(f"async def pull_{s['name']}(") == 1 for s in sups)


def test_hardlink_dedupe_finds_only_the_identical_pairs(tmp_path):
    import random

    from headroom.eval.corpus.captures import hardlink_dedupe

    p = hardlink_dedupe.plan(random.Random(1))
    small = {**p, "files": p["files"][:140], "size": {f: 40 + n for n, f in enumerate(p["files"][:140])}}
    hardlink_dedupe.write(small, tmp_path, random.Random(2))
    # the copies with another mode or time are the same bytes, yet not identical as hardlink reads them
    assert hardlink_dedupe.identical(tmp_path) == {frozenset(t) for t in p["twins"]}


def test_precommit_hooks_rules_find_what_was_planted(tmp_path):
    import random
    import subprocess
    import sys

    from headroom.eval.corpus.captures import precommit_hooks

    p = precommit_hooks.plan(random.Random(1))
    precommit_hooks.write(p, tmp_path, random.Random(2))
    for rule, code in precommit_hooks.FINDING.items():
        done = subprocess.run([sys.executable, "tools/rules.py", rule, *p["files"]], cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert done.returncode == code
        # "path:line: ...", "path: CRLF ...", or "Private key found: path"
        flagged = {line.split(":")[0].removeprefix("Private key found").strip() or line.split(": ")[1]
                   for line in done.stdout.splitlines()}
        assert flagged == set(p["planted"][rule]), rule
    clean = subprocess.run([sys.executable, "tools/rules.py", "no-print-calls", *p["files"]], cwd=tmp_path,
                           capture_output=True, text=True, check=False)
    assert clean.returncode == 0 and not clean.stdout


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None, reason="gcc, binutils")
def test_symbols_check_library_exports_the_record(tmp_path):
    import random

    from headroom.eval.corpus.captures import symbols_check
    from headroom.eval.corpus.captures._run import run

    p = symbols_check.plan(random.Random(1))
    exported = symbols_check.write(p, tmp_path)
    assert not set(p["removed"]) & set(exported) and len(p["added"]) == len(symbols_check.MODULES)
    assert all(n not in p["old"] for pair in p["added"].values() for n in pair)
    run(["gcc", "-shared", "-fPIC", "-o", "lib.so", "ledger.c"], cwd=tmp_path)
    assert symbols_check.dynamic_symbols(tmp_path / "lib.so") == set(exported)


def test_regression_summary_plants_one_negative_one_null_and_a_far_largest_effect():
    import random

    from headroom.eval.corpus.captures import regression_summary

    rnd = random.Random(2406)
    beta = regression_summary.plan(rnd)
    assert sum(b < 0 for b in beta.values()) == 1 and sum(b == 0 for b in beta.values()) == 1
    top = sorted(beta.values())
    assert top[-1] - top[-2] > 10 and len(set(beta.values())) == len(beta)
    regression_summary.check(beta, regression_summary.rows(beta, rnd))


def test_import_contracts_ast_finds_the_planted_imports_and_only_the_planted_chains(tmp_path):
    import random

    from headroom.eval.corpus.captures import import_contracts as ic

    p = ic.plan(random.Random(1))
    ic.write(p, tmp_path)
    g = ic.graph(tmp_path)
    for f, (low, high, line) in p["upward"].items():
        assert g[ic._mod(f, "store", low)][ic._mod(f, "api", high)] == line
    for a, b in p["pairs"]:
        found = ic.paths(g, f"shop.{a}", f"shop.{b}")
        chain = p["chains"].get((a, b))
        assert len(found) == (1 if chain else 0), (a, b, found)
        if chain:
            assert found[0][1] == f"shop.shared.{chain[1]}"


def test_system_checks_plants_each_flaw_once_on_a_field_of_its_own():
    import random

    from headroom.eval.corpus.captures import system_checks

    p = system_checks.plan(random.Random(1))
    values = list(p["flawed"].values())
    # every flaw without another model in it is planted verbatim, once
    assert all(values.count(f) == 1 for f in system_checks.FLAWS if "{other}" not in f)
    labels = list(p["flawed"])
    assert len(set(labels)) == len(system_checks.FLAWS)
    for label in labels:  # the field sits on a model of the app its label names
        app, model, name = label.split(".")
        assert model in p["apps"][app] and name in p["fields"][f"{app}.{model}"]


def test_release_notes_fragments_read_back_as_written(tmp_path):
    import random

    from headroom.eval.corpus.captures import release_notes

    p = release_notes.plan(random.Random(1))
    release_notes.write(p, tmp_path)
    assert release_notes.read_back(tmp_path) == p["fragments"]
    # four-digit issue numbers: none is a prefix of another
    assert all(1000 <= i <= 9999 for i in p["fragments"])


def test_ocsp_status_index_and_times_as_openssl_writes_them():
    import random
    from datetime import UTC, datetime

    from headroom.eval.corpus.captures import ocsp_status

    assert ocsp_status.openssl_time(datetime(2026, 4, 1, 8, 0, 0, tzinfo=UTC)) == "Apr  1 08:00:00 2026 GMT"
    p = ocsp_status.plan(random.Random(1))
    rows = [line.split("\t") for line in ocsp_status.index_text(p).splitlines()]
    revoked = [r for r in rows if r[0] == "R"]
    assert len(revoked) == 20 and all(r[2].endswith(p["record"][r[3]][2]) for r in revoked)
    assert p["unknown"] not in p["record"] and p["unknown"] in p["asked"]
    reasons = [p["record"][r[3]][2] for r in revoked]
    assert all(reasons.count(x) == 1 for x in ocsp_status.RARE)


def test_supervisor_status_config_gives_each_role_its_program(tmp_path):
    import random

    from headroom.eval.corpus.captures import supervisor_status

    p = supervisor_status.plan(random.Random(1))
    text = supervisor_status.config(p, tmp_path)
    roles = list(p["role"].values())
    assert roles.count("run") == len(roles) - 3 and len(set(p["priority"].values())) == len(roles)
    assert text.count("autostart=false") == 1 and text.count("command=false") == 1
    assert text.count("command=sleep ") == roles.count("run") + 1  # the manual one sleeps too, once started
