# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""What the ccaas modules share: running ccactl (module parameter ccactl)
and writing a configuration file of ccaas-service (module parameter
conf_dir), which it applies at start, reload and upgrade-core."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import stat
import tempfile


def argument_spec(conf=False, **own):
    """A module's argument spec: its OWN options, ccactl, and with CONF
    conf_dir and persist (the doc fragments ccaas.fleet.ccaas and
    ccaas.fleet.ccaas.conf)."""
    spec = dict(own, ccactl=dict(type="str", default="ccactl"))
    if conf:
        spec.update(conf_dir=dict(type="path", default="/etc/ccaas"),
                    persist=dict(type="bool", default=True))
    return spec


def run_ccactl(module, args, data=None, json_out=True, hints=()):
    """Run ccactl ARGS (with -j if JSON_OUT, DATA on its standard input);
    fail the task with ccactl's own message if it fails, followed by the
    advice of each (WORDS, ADVICE) of HINTS whose WORDS are in it.
    Returns the parsed JSON, or the output as text."""
    cmd = [module.params["ccactl"]] + (["-j"] if json_out else []) + list(args)
    if data is None:
        rc, out, err = module.run_command(cmd)
    else:
        rc, out, err = module.run_command(cmd, data=data, binary_data=True)
    if rc != 0:
        msg = (err or out).strip() or "ccactl failed"
        for words, advice in hints:
            if words in msg:
                msg += "; " + advice
        module.fail_json(msg=msg, rc=rc, cmd=" ".join(cmd))
    if not json_out:
        return out
    try:
        return json.loads(out)
    except ValueError:
        module.fail_json(msg="ccactl printed no JSON: %r" % out, cmd=" ".join(cmd))


def conf_text(what, lines):
    """The text of a configuration file holding LINES, with a header."""
    return ("# %s, written by Ansible (ccaas.fleet) after the kernel took it;\n"
            "# ccaas-service applies it at start, reload and upgrade-core.\n"
            % what) + "".join(line + "\n" for line in lines)


def read_conf(path):
    """The text of PATH, None if there is none."""
    try:
        with open(path) as f:
            return f.read()
    except (IOError, OSError):
        return None


def _fsync_dir(d):
    """Make a rename in directory D durable."""
    fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def conf_lines(text):
    """The lines of a configuration TEXT that say something, without
    comments and with single spaces, in order: its rules or entries."""
    lines = (" ".join(line.split("#", 1)[0].split()) for line in text.splitlines())
    return [line for line in lines if line]


def write_conf(module, path, text, unordered=False, **committed):
    """PATH holds TEXT afterwards: written to a temporary file in the same
    directory, flushed, given the mode, owner and SELinux context of the
    PATH it replaces (0644 root for a new one), renamed over PATH, the
    directory flushed, so that a reader (a boot) sees the old file or the
    new one whole. Returns whether it changed; in check mode writes
    nothing. UNORDERED: a PATH with the same lines in another order (a
    policy: the kernel orders its rules itself) is left as it is. On
    failure the task fails with COMMITTED among its results (what the
    kernel took already: changed, generation ...)."""
    old = read_conf(path)
    if old == text:
        return False
    if unordered and old is not None and sorted(conf_lines(old)) == sorted(conf_lines(text)):
        return False
    if module.check_mode:
        return True
    d = os.path.dirname(path) or "."

    def failed(e):
        module.fail_json(msg="the kernel took it, but %s cannot be written: %s" % (path, e),
                         **committed)

    try:
        if not os.path.isdir(d):
            os.makedirs(d, 0o755)
        fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=d)
    except (IOError, OSError) as e:
        failed(e)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if st is None:
            os.chmod(tmp, 0o644)
        else:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
            os.chown(tmp, st.st_uid, st.st_gid)
            if module.selinux_enabled():
                module.set_context_if_different(tmp, module.selinux_context(path), False)
        os.rename(tmp, path)
        _fsync_dir(d)
    except (IOError, OSError) as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        failed(e)
    return True
