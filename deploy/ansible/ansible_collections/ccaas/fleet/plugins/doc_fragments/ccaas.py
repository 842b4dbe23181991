# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-only
"""The options the ccaas modules share: the ccactl they run (every one),
and where ccaas-service's configuration is kept (those that write it)."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):

    DOCUMENTATION = r"""
options:
  ccactl:
    description: The ccactl program to run.
    type: str
    default: ccactl
"""

    CONF = r"""
options:
  conf_dir:
    description:
      - The directory of ccaas-service's configuration (its
        C(CCAAS_CONF_DIR)), where the module keeps its file
        (C(policy.conf) or C(scope.conf)).
    type: path
    default: /etc/ccaas
  persist:
    description:
      - Write the module's file in I(conf_dir); without it a reboot, a
        reload or upgrade-core reverts the change.
    type: bool
    default: true
"""
