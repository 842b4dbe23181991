// SPDX-License-Identifier: GPL-2.0
/*
 * Retroactive application of the policy to existing connections.
 */
#include "core.h"

void ccaas_policy_committed(struct net *net, const struct ccaas_policy_gen *gen,
			    bool migrate, bool force, struct genl_info *info)
{
}
