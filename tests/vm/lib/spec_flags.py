#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a genetlink family's permission flags against its YAML spec.

  spec_flags.py SPEC.yaml

Asks the genl controller (CTRL_CMD_GETFAMILY) for the family the spec
names and compares each operation's flags as the kernel reports them
(CTRL_ATTR_OPS: GENL_ADMIN_PERM, GENL_UNS_ADMIN_PERM) with the operation's
`flags` in the spec (admin-perm, uns-admin-perm); an operation numbered as
YNL numbers them (its `value`, else one more than the one before, from 1).
Prints one line per operation and exits 1 on any difference, or if the
kernel and the spec disagree on which operations exist.
"""
import struct
import sys

import yaml

from genl import (CTRL_ATTR_FAMILY_NAME, CTRL_CMD_GETFAMILY, GENL_ID_CTRL,
                  Genl, attr, parse_attrs)

CTRL_ATTR_OPS = 6
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
GENL_ADMIN_PERM, GENL_UNS_ADMIN_PERM = 0x01, 0x10
PERM_FLAGS = {"admin-perm": GENL_ADMIN_PERM,
              "uns-admin-perm": GENL_UNS_ADMIN_PERM}


def kernel_ops(g, family):
    err, msg, replies = g._request(
        GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
        attr(CTRL_ATTR_FAMILY_NAME, family.encode() + b"\0"))
    if err:
        sys.exit("CTRL_CMD_GETFAMILY %s: errno %d %s" % (family, err, msg))
    ops = {}
    data = parse_attrs(replies[0][4:])[CTRL_ATTR_OPS]
    while len(data) >= 4:
        alen, _ = struct.unpack_from("=HH", data)
        op = parse_attrs(data[4:alen])
        data = data[(alen + 3) & ~3:]
        flags = struct.unpack("=I", op.get(CTRL_ATTR_OP_FLAGS, b"\0\0\0\0"))[0]
        ops[struct.unpack("=I", op[CTRL_ATTR_OP_ID])[0]] = flags
    return ops


def spec_ops(spec):
    ops, value = {}, 0
    for op in spec["operations"]["list"]:
        value = op.get("value", value + 1)
        # notifications have no handler: the kernel lists no op for them
        if "do" not in op and "dump" not in op:
            continue
        perm = 0
        for f in op.get("flags", []):
            perm |= PERM_FLAGS.get(f, 0)
        ops[value] = (op["name"], perm)
    return ops


def main():
    with open(sys.argv[1]) as f:
        spec = yaml.safe_load(f)
    have = kernel_ops(Genl(spec["name"]), spec["name"])
    want = spec_ops(spec)
    bad = 0
    for value in sorted(set(have) | set(want)):
        name, perm = want.get(value, ("(not in the spec)", None))
        got = have.get(value)
        kperm = None if got is None else got & (GENL_ADMIN_PERM |
                                                GENL_UNS_ADMIN_PERM)
        ok = perm is not None and kperm == perm
        bad += not ok
        print("%-3d %-16s spec %s kernel %s%s" % (
            value, name, "-" if perm is None else "%#x" % perm,
            "-" if kperm is None else "%#x" % kperm, "" if ok else "  MISMATCH"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
