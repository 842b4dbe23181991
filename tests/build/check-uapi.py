#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a uapi header defines what its generic netlink YAML spec says.

Derives every constant the spec implies (family name and version, multicast
groups, consts, flag values, attribute and command numbers), compiles a
program that prints them from the header, and compares. Usage:
check-uapi.py SPEC.yaml HEADER.h
"""
import os
import subprocess
import sys
import tempfile

import yaml


def c_name(*parts):
    return "_".join(p.replace("-", "_") for p in parts if p).upper()


def expected(spec):
    fam = spec["name"]
    exp = {c_name(fam, "family-name"): '"%s"' % fam,
           c_name(fam, "family-version"): str(spec.get("version", 1))}
    for grp in spec.get("mcast-groups", {}).get("list", []):
        exp[c_name(fam, "mcgrp", grp["name"])] = '"%s"' % grp["name"]
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            exp[c_name(fam, d["name"])] = str(d["value"])
        elif d["type"] in ("flags", "enum"):
            prefix = d.get("name-prefix", fam + "-" + d["name"] + "-")
            for i, e in enumerate(d["entries"]):
                name = e["name"] if isinstance(e, dict) else e
                val = 1 << i if d["type"] == "flags" else i
                exp[c_name(prefix + name)] = str(val)
    for aset in spec["attribute-sets"]:
        for i, a in enumerate(aset["attributes"], start=1):
            exp[c_name(fam, "a", aset["name"], a["name"])] = str(i)
        exp[c_name(fam, "a", aset["name"], "max")] = str(len(aset["attributes"]))
    ops = spec["operations"]["list"]
    for i, op in enumerate(ops, start=1):
        exp[c_name(fam, "cmd", op["name"])] = str(op.get("value", i))
    exp[c_name(fam, "cmd", "max")] = str(len(ops))
    return exp


def actual(header, names):
    prog = ["#include <stdio.h>", '#include "%s"' % os.path.abspath(header),
            "#define STR(x) #x", "#define XSTR(x) STR(x)", "int main(void) {"]
    for n in names:
        prog.append('#ifdef %s\n printf("%s %%s\\n", XSTR(%s));\n#else\n'
                    ' printf("%s %%lld\\n", (long long)%s);\n#endif'
                    % (n, n, n, n, n))
    prog.append("return 0; }")
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(src, "w") as f:
            f.write("\n".join(prog))
        r = subprocess.run(["cc", "-o", exe, src], capture_output=True, text=True)
        if r.returncode:
            print(r.stderr)
            sys.exit("header lacks names the spec implies")
        out = subprocess.run([exe], capture_output=True, text=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def main():
    spec = yaml.safe_load(open(sys.argv[1]))
    exp = expected(spec)
    act = actual(sys.argv[2], exp)
    bad = [(n, exp[n], act.get(n)) for n in exp if act.get(n) != exp[n]]
    for n, e, a in bad:
        print("%s: spec says %s, header says %s" % (n, e, a))
    print("%d names checked, %d differ" % (len(exp), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
