# SPDX-License-Identifier: GPL-2.0-only
"""What the ccaas modules share: running ccactl (module parameter ccactl)."""

import json


def run_ccactl(module, args, data=None, json_out=True):
    """Run ccactl ARGS (with -j if JSON_OUT, DATA on its standard input);
    fail the task with ccactl's own message if it fails. Returns the
    parsed JSON, or the output as text."""
    cmd = [module.params["ccactl"]] + (["-j"] if json_out else []) + list(args)
    if data is None:
        rc, out, err = module.run_command(cmd)
    else:
        rc, out, err = module.run_command(cmd, data=data, binary_data=True)
    if rc != 0:
        module.fail_json(msg=(err or out).strip() or "ccactl failed", rc=rc,
                         cmd=" ".join(cmd))
    if not json_out:
        return out
    try:
        return json.loads(out)
    except ValueError:
        module.fail_json(msg="ccactl printed no JSON: %r" % out, cmd=" ".join(cmd))
