// SPDX-License-Identifier: GPL-2.0
#include "core.h"

int ccaas_policy_net_init(struct ccaas_net *cn)
{
	return 0;
}

void ccaas_policy_net_exit(struct ccaas_net *cn)
{
}
