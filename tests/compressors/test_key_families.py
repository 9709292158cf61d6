"""The same setting of many things, in flat dotted keys (issue 33, tenth session).

``sysctl -a`` lists ``net.ipv4.conf.<interface>.<setting>`` for every interface: the one
interface forwarding packets, or set for jumbo frames, is named by nothing but its place
in the key, and its value is common elsewhere ("1"). Now a key whose value is odd among
the same setting of the other things stays; and next to a key the question names, its
neighbours sharing its stem (``tcp_keepalive_*``) stay, for the answer is often one of them.
"""

from __future__ import annotations

import random

import pytest

from .tool_rounds import tool_round

_SETTINGS = {"accept_local": "0", "accept_redirects": "1", "arp_filter": "0", "arp_ignore": "0",
             "bootp_relay": "0", "disable_policy": "0", "forwarding": "0", "log_martians": "0", "mtu": "1500",
             "proxy_arp": "0", "route_localnet": "0", "rp_filter": "0", "send_redirects": "1", "shared_media": "1"}
_GLOBAL = {f"tcp_{k}": str(v) for k, v in (("app_win", 31), ("autocorking", 1), ("base_mss", 1024),
                                           ("fin_timeout", 60), ("keepalive_intvl", 75), ("keepalive_probes", 9),
                                           ("keepalive_time", 1313), ("max_orphans", 65536), ("mtu_probing", 0),
                                           ("retries1", 3), ("retries2", 15), ("rmem", "4096 131072 6291456"),
                                           ("sack", 1), ("syn_retries", 6), ("timestamps", 1), ("window_scaling", 1))}


def _sysctl(rng: random.Random, odd: dict[str, tuple[str, str]]) -> str:
    """``odd`` maps an interface to (setting, value) set for it alone."""
    interfaces = ["all", "default", "eth0", "eth1", "lan0", "lan1", "lo", "wan0", "wan1", "stor0"]
    lines = []
    for family in ("ipv4", "ipv6"):
        for itf in interfaces:
            for setting, value in _SETTINGS.items():
                if odd.get(itf, ("", ""))[0] == setting and family == "ipv4":
                    value = odd[itf][1]
                lines.append(f"net.{family}.conf.{itf}.{setting} = {value}")
        if family == "ipv4":
            lines += [f"net.ipv4.{k} = {v}" for k, v in _GLOBAL.items()]
            lines += [f"net.ipv4.route.{k} = {rng.randrange(100, 9000)}" for k in ("gc_elasticity", "gc_interval",
                                                                                    "gc_min_interval", "gc_timeout")]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(4))
def test_the_one_interface_set_otherwise_stays(seed):
    rng = random.Random(seed)
    itf = rng.choice(["eth1", "lan0", "lan1", "wan0", "wan1", "stor0"])
    setting, value = rng.choice([("forwarding", "1"), ("mtu", "9000"), ("rp_filter", "2"), ("proxy_arp", "1")])
    got = tool_round("sysctl -a", _sysctl(rng, {itf: (setting, value)}), "Is any interface set up differently?")
    assert f"net.ipv4.conf.{itf}.{setting} = {value}" in got.split("\n")
    assert len(got) < 0.6 * len(_sysctl(rng, {itf: (setting, value)}))


def test_a_named_keys_neighbours_sharing_its_stem_stay():
    text = _sysctl(random.Random(7), {})
    got = tool_round("sysctl net.ipv4", text, "How long before TCP sends keep-alive probes?")
    assert "net.ipv4.tcp_keepalive_time = 1313" in got.split("\n")
