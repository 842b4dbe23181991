#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fail every allocation of a ccaas netlink request in turn (fail-nth).

  faults.py UAPI_HEADER SCENARIO...

For each scenario, request k of the loop runs with /proc/thread-self/fail-nth
set to k: the k-th fault-injection point the request reaches in the kernel
(slab or page allocation: the kernel must have FAILSLAB and FAIL_PAGE_ALLOC,
with ignore-gfp-wait off) fails. The loop ends at the first k the request
no longer reaches. After each request:
  - refused: every dump of the namespace is byte-identical to before;
  - accepted: the dumps show the change, which is then undone.
A request whose answer itself could not be allocated (the socket reports
ENOBUFS instead of an ack) may have been carried out: either state is
right, and a change is undone. Prints one line per scenario ("SCENARIO: N
faults, A accepted, R refused (errnos)") and "faults N" in total; exits 1 on the first broken invariant,
with what differed.

Scenarios: policy_set policy_apply policy_rollback scope_add scope_load
log_add migrate drain (drain wants sockets on cca_dctcp and cca_cubic
loaded; the others need only the core and tcp_cca_dctcp).
"""
import errno
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genl import Genl, attr, nest, parse_attrs  # noqa: E402

MAX_FAULTS = 2000   # a request reaching more points than this is a bug


def enums(header):
    """{NAME: value} of every enumerator in the uapi header."""
    out = {}
    text = re.sub(r"/\*.*?\*/", "", open(header).read(), flags=re.S)
    for body in re.findall(r"enum\s+\w*\s*\{(.*?)\}", text, flags=re.S):
        nxt = 0
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, value = item.partition("=")
            name = name.strip()
            if value.strip():
                try:
                    nxt = int(value.strip(), 0)
                except ValueError:
                    nxt = out.get(value.strip().strip("()").split()[0], 0)
                    if "- 1" in value:
                        nxt -= 1
            out[name] = nxt
            nxt += 1
    return out


E = enums(sys.argv[1])


def u8(name, v):
    return attr(E[name], struct.pack("=B", v))


def u32(name, v):
    return attr(E[name], struct.pack("=I", v))


def s(name, v):
    return attr(E[name], v.encode() + b"\0")


def flag(name):
    return attr(E[name], b"")


def rule(loc, cca, *extra):
    return nest(E["CCAAS_A_POLICY_RULE"], u8("CCAAS_A_RULE_LOCALITY", loc),
                s("CCAAS_A_RULE_CCA", cca), *extra)


def param(name, value):
    return nest(E["CCAAS_A_RULE_PARAM"], s("CCAAS_A_PARAM_NAME", name),
                u32("CCAAS_A_PARAM_VALUE", value))


def scope_entry(a, b, c, d, plen, loc):
    return nest(E["CCAAS_A_SCOPE_ENTRY"],
                attr(E["CCAAS_A_SCOPE_ADDR"], bytes([a, b, c, d])),
                u8("CCAAS_A_SCOPE_PREFIXLEN", plen),
                u8("CCAAS_A_SCOPE_LOCALITY", loc))


DC, REGION = E["CCAAS_LOCALITY_DC"], E["CCAAS_LOCALITY_REGION"]
CMD = {k[len("CCAAS_CMD_"):].lower(): v for k, v in E.items()
       if k.startswith("CCAAS_CMD_")}


class Host:
    def __init__(self):
        self.g = Genl("ccaas")
        self.fd = os.open("/proc/thread-self/fail-nth", os.O_RDWR)

    def do(self, cmd, payload=b"", fail_nth=0):
        """(errno, extack, injected): the request, failing point fail_nth."""
        if fail_nth:
            os.pwrite(self.fd, str(fail_nth).encode(), 0)
        try:
            err, msg, _ = self.g.request(CMD[cmd], payload)
        except OSError as e:    # the ack itself could not be allocated
            err, msg = e.errno, "(no ack)"
        left = int(os.pread(self.fd, 32, 0) or b"0")
        os.pwrite(self.fd, b"0", 0)
        return err, msg, fail_nth and left == 0

    def dump(self, cmd, payload=b""):
        err, _, replies = self.g.request(CMD[cmd], payload, dump=True)
        if err:
            raise OSError(err, "dump %s failed" % cmd)
        return replies

    def generation(self):
        """The generation in force."""
        _, _, replies = self.g.request(CMD["policy_get"])
        return struct.unpack("=I", parse_attrs(replies[0][4:])[
            E["CCAAS_A_POLICY_GENERATION"]])[0]

    def state(self):
        """Everything the family shows about the namespace, as bytes."""
        return {
            "policy": self.dump("policy_get"),
            "history": self.dump("policy_history"),
            "scope": self.dump("scope_get"),
            "log": self.g.request(CMD["log_get"])[2],
            "cca": self.dump("cca_get"),
            "sock": self.dump("sock_get"),
        }


def differs(a, b):
    return [k for k in a if a[k] != b[k]]


# scenario -> (command, payload, what an accepted request changes, undo)
def scenarios(h):
    return {
        "policy_set": ("policy_set",
                       rule(DC, "cca_dctcp", param("shift_g", 5),
                            u32("CCAAS_A_RULE_MIN_RTO_US", 1000)),
                       {"policy", "history"},
                       lambda: h.do("policy_del", nest(
                           E["CCAAS_A_POLICY_RULE"],
                           u8("CCAAS_A_RULE_LOCALITY", DC)))),
        "policy_apply": ("policy_apply",
                         rule(DC, "cca_dctcp") + rule(REGION, "cubic") +
                         rule(E["CCAAS_LOCALITY_RACK"], "cca_dctcp",
                              param("alpha_on_init", 512)),
                         {"policy", "history"},
                         lambda: h.do("policy_apply", b"")),
        # the generation before the one in force, at each attempt: every
        # accepted rollback commits one, and history keeps only a few
        "policy_rollback": ("policy_rollback",
                            lambda: u32("CCAAS_A_POLICY_GENERATION",
                                        max(h.generation() - 1, 1)),
                            {"policy", "history"}, None),
        "scope_add": ("scope_add",
                      attr(E["CCAAS_A_SCOPE_ADDR"], bytes([10, 9, 0, 0])) +
                      u8("CCAAS_A_SCOPE_PREFIXLEN", 16) +
                      u8("CCAAS_A_SCOPE_LOCALITY", DC),
                      {"scope"},
                      lambda: h.do("scope_del",
                                   attr(E["CCAAS_A_SCOPE_ADDR"], bytes([10, 9, 0, 0])) +
                                   u8("CCAAS_A_SCOPE_PREFIXLEN", 16))),
        "scope_load": ("scope_load",
                       b"".join(scope_entry(10, i, 0, 0, 16, DC) for i in range(40)),
                       {"scope"},
                       lambda: h.do("scope_flush")),
        "log_add": ("log_add", flag("CCAAS_A_LOG_ALL"), {"log"},
                    lambda: h.do("log_del", flag("CCAAS_A_LOG_ALL"))),
        # a pass may move sockets that an earlier accepted pass left behind
        "migrate": ("migrate", flag("CCAAS_A_MIGRATE_FORCE"), set(), None),
        "drain": ("cca_drain", s("CCAAS_A_MIGRATE_CCA", "cca_dctcp") +
                  s("CCAAS_A_MIGRATE_TO", "cca_cubic"), set(), None),
    }


def run(h, name, cmd, payload, changes, undo):
    faults = accepted = refused = 0
    errs = {}
    for k in range(1, MAX_FAULTS + 1):
        before = h.state()
        # a payload may depend on the state (rollback: the generation before)
        body = payload() if callable(payload) else payload
        err, msg, injected = h.do(cmd, body, fail_nth=k)
        after = h.state()
        if not injected:
            # the request ran to its end without reaching point k
            if err:
                print("%s: fails without a fault: errno %d %s" % (name, err, msg))
                return None
            if changes and not set(differs(before, after)) & changes:
                print("%s: accepted but no dump changed" % name)
                return None
            if undo:
                undo()
            break
        faults += 1
        if err:
            refused += 1
            errs[errno.errorcode.get(err, str(err))] = 1
            d = differs(before, after)
            # sockets may come and go by themselves; everything else may not
            d = [x for x in d if x != "sock"]
            if d and msg == "(no ack)":
                # done, but the answer could not be allocated
                if undo:
                    undo()
            elif d:
                print("%s: fault %d refused (errno %d, %s) but changed %s" %
                      (name, k, err, msg, d))
                return None
        else:
            accepted += 1
            if undo:
                undo()
    else:
        print("%s: still reaching fault points after %d" % (name, MAX_FAULTS))
        return None
    print("%s: %d faults, %d accepted, %d refused (%s)" %
          (name, faults, accepted, refused, " ".join(sorted(errs)) or "-"))
    return faults


def main():
    h = Host()
    total = 0
    for name in sys.argv[2:]:
        n = run(h, name, *scenarios(h)[name])
        if n is None:
            return 1
        total += n
    print("faults %d" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
