#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a generic netlink YAML spec the way the kernel's YNL tools do.

1. Validate it with jsonschema against the kernel's schema of the level its
   `protocol` names (Documentation/netlink/<protocol>.yaml);
2. load it with YNL's own spec parser (tools/net/ynl/lib), which resolves
   every reference (attribute sets, nested sets, enums, notifications);
3. insist on the strictest level that fits: genetlink-c only if the spec
   uses a genetlink-c property, genetlink-legacy only if it uses one that
   genetlink-c refuses.

Usage: check-spec.py SPEC.yaml KERNEL_TREE
(KERNEL_TREE: a tree holding Documentation/netlink and tools/net/ynl, such as
the one scripts/ynl-prepare.sh extracts.)
"""
import os
import sys

import jsonschema
import yaml


def refused_by(spec, schema_dir, level):
    """Properties of SPEC that the schema of LEVEL refuses."""
    with open(os.path.join(schema_dir, level + ".yaml")) as f:
        schema = yaml.safe_load(f)
    errors = jsonschema.Draft7Validator(schema).iter_errors(
        dict(spec, protocol=level))
    return ["%s: %s" % ("/".join(map(str, e.path)), e.message) for e in errors]


def main():
    spec_path, tree = sys.argv[1], sys.argv[2]
    schema_dir = os.path.join(tree, "Documentation", "netlink")
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    proto = spec.get("protocol", "genetlink")
    schema_path = os.path.join(schema_dir, proto + ".yaml")
    with open(schema_path) as f:
        schema = yaml.safe_load(f)

    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(spec),
                    key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s" % ("/".join(map(str, e.path)), e.message))
    if errors:
        print("%s: %d schema errors (%s)" % (spec_path, len(errors), proto))
        return 1

    sys.path.insert(0, os.path.join(tree, "tools", "net", "ynl"))
    from lib import SpecFamily  # noqa: E402 (the kernel's YNL library)
    family = SpecFamily(os.path.abspath(spec_path), schema_path)

    stricter = {"genetlink-c": "genetlink",
                "genetlink-legacy": "genetlink-c"}.get(proto)
    if stricter and not refused_by(spec, schema_dir, stricter):
        print("%s: uses nothing %s refuses; say protocol: %s"
              % (spec_path, stricter, stricter))
        return 1
    print("%s: valid %s spec: %d operations, %d attribute sets, %d "
          "multicast groups" % (spec_path, proto, len(family.msgs),
                                len(family.attr_sets),
                                len(family.mcast_groups)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
