// SPDX-License-Identifier: GPL-2.0
/*
 * The CCA registry: which ccaas CCAs exist, their versions and features.
 *
 * Writers (module load/unload) serialise on ccaas_registry_lock; readers on
 * the data path will walk the list under RCU, control-plane readers (netlink)
 * take the mutex so they may sleep while filling messages.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/string.h>

#include <ccaas/sock.h>

#include "core.h"

static LIST_HEAD(ccaas_registry);
static DEFINE_MUTEX(ccaas_registry_lock);

/* The features a CCA may declare; anything else is a bug in the CCA. */
#define CCAAS_CCA_F_ALL (CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK | \
			 CCAAS_CCA_F_NONECN_OK | CCAAS_CCA_F_TRANSITIONAL | \
			 CCAAS_CCA_F_CONG_CONTROL)

static struct ccaas_cca *ccaas_registry_find(const char *name)
{
	struct ccaas_cca *cca;

	list_for_each_entry_rcu(cca, &ccaas_registry, node,
				lockdep_is_held(&ccaas_registry_lock))
		if (!strcmp(cca->ops->name, name))
			return cca;
	return NULL;
}

/*
 * The name fills its char array with its NUL, which a C initialiser does
 * not insist on: "sixteen-chars-xx" fits TCP_CA_NAME_MAX without one. The
 * stack never checks; netlink replies and ccalog read the names as strings.
 */
static bool ccaas_ops_name_ok(const struct tcp_congestion_ops *ops)
{
	return ops->name[0] && strnlen(ops->name, TCP_CA_NAME_MAX) < TCP_CA_NAME_MAX;
}

/* A CCA's declared features must agree with what its ops really do. */
static int ccaas_cca_check(const struct ccaas_cca *cca)
{
	const struct tcp_congestion_ops *ops = cca->ops;
	bool needs_ecn = ops->flags & TCP_CONG_NEEDS_ECN;

	if (!ccaas_ops_name_ok(ops) ||
	    (cca->fallback_ops && !ccaas_ops_name_ok(cca->fallback_ops)))
		return -EINVAL;
	if (cca->features & ~CCAAS_CCA_F_ALL)
		return -EINVAL;
	if (needs_ecn != !!(cca->features & CCAAS_CCA_F_NEEDS_ECN))
		return -EINVAL;
	/*
	 * AccECN's flags refine ECN: the stack marks packets ECT only for ops
	 * that need ECN, so ops asking for AccECN or ECT(1) without it would
	 * negotiate ECN and then send Not-ECT. Ops refusing the RFC 3168
	 * fallback are left without ECN by a classic peer: they must hold
	 * non-ECN sockets.
	 */
	if ((ops->flags & CCAAS_TCP_CONG_ECN_FLAGS) && !needs_ecn)
		return -EINVAL;
	if ((ops->flags & CCAAS_TCP_CONG_NO_FALLBACK_RFC3168) &&
	    !(cca->features & CCAAS_CCA_F_NONECN_OK))
		return -EINVAL;
	/*
	 * A CCA that needs ECN holds a socket without ECN only on fallback
	 * ops: on its own, the stack would mark the socket's packets ECT(0)
	 * once the CCA is initialised (tcp_init_congestion_control()).
	 */
	if (needs_ecn && (cca->features & CCAAS_CCA_F_NONECN_OK) &&
	    !cca->fallback_ops)
		return -EINVAL;
	if (!!ops->cong_control != !!(cca->features & CCAAS_CCA_F_CONG_CONTROL))
		return -EINVAL;
	/* Fallback ops come from the same module and never need ECN. */
	if (cca->fallback_ops &&
	    (cca->fallback_ops->owner != ops->owner ||
	     cca->fallback_ops->flags & CCAAS_TCP_CONG_ECN_FLAGS))
		return -EINVAL;
	/* A CCA must be able to hold at least one kind of socket. */
	if (!(cca->features & (CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK)))
		return -EINVAL;
	/*
	 * Every schema parameter is settable per rule, and a socket's header
	 * holds CCAAS_SOCK_PARAMS values: a longer schema would accept rule
	 * values that no socket ever sees.
	 */
	if (cca->n_params > CCAAS_SOCK_PARAMS || (cca->n_params && !cca->params))
		return -EINVAL;
	return 0;
}

#ifdef CCAAS_HAVE_CWND_EVENT_TX_START
/*
 * Where tcp_ca_event() hands CA_EVENT_TX_START only to cwnd_event_tx_start
 * and never to cwnd_event, pass it on to the socket's cwnd_event, so that a
 * CCA written for cwnd_event still sees idle restarts (Cubic's epoch,
 * dcndelay's step reset, ccalog's is_tx_start). It is installed only in
 * ops that have a cwnd_event, so the current ops always have one.
 */
static void ccaas_cwnd_event_tx_start(struct sock *sk)
{
	inet_csk(sk)->icsk_ca_ops->cwnd_event(sk, CA_EVENT_TX_START);
}

static void ccaas_ops_forward_tx_start(struct tcp_congestion_ops *ops)
{
	if (ops && ops->cwnd_event && !ops->cwnd_event_tx_start)
		ops->cwnd_event_tx_start = ccaas_cwnd_event_tx_start;
}
#else
static void ccaas_ops_forward_tx_start(struct tcp_congestion_ops *ops)
{
}
#endif

/**
 * ccaas_cca_register - register a CCA with the TCP stack and the core
 * @cca: the CCA; must stay valid until ccaas_cca_unregister()
 *
 * Return: 0, -EINVAL for inconsistent declarations, -EEXIST if the name is
 * taken (by a ccaas CCA or any other congestion control).
 */
int ccaas_cca_register(struct ccaas_cca *cca)
{
	int err;

	err = ccaas_cca_check(cca);
	if (err) {
		pr_err("ccaas: %.*s declares features or names that do not match its ops\n",
		       TCP_CA_NAME_MAX, cca->ops->name);
		return err;
	}

	/* Before the stack can see the ops: both kinds of ops a socket holds. */
	ccaas_ops_forward_tx_start(cca->ops);
	ccaas_ops_forward_tx_start(cca->fallback_ops);

	mutex_lock(&ccaas_registry_lock);
	if (ccaas_registry_find(cca->ops->name)) {
		err = -EEXIST;
		goto unlock;
	}
	err = ccaas_ext_register(cca);
	if (err)
		goto unlock;
	err = tcp_register_congestion_control(cca->ops);
	if (err) {
		ccaas_ext_unregister(cca);
		goto unlock;
	}
	list_add_tail_rcu(&cca->node, &ccaas_registry);
	pr_info("ccaas: registered %s %u.%u.%u\n", cca->ops->name,
		CCAAS_VERSION_MAJOR(cca->version),
		CCAAS_VERSION_MINOR(cca->version),
		CCAAS_VERSION_PATCH(cca->version));
unlock:
	mutex_unlock(&ccaas_registry_lock);
	return err;
}
EXPORT_SYMBOL_GPL(ccaas_cca_register);

/**
 * ccaas_cca_unregister - undo ccaas_cca_register()
 * @cca: a registered CCA
 *
 * Called from the CCA module's exit, which the module loader allows only
 * once no socket holds a reference to the module any more.
 */
void ccaas_cca_unregister(struct ccaas_cca *cca)
{
	mutex_lock(&ccaas_registry_lock);
	list_del_rcu(&cca->node);
	mutex_unlock(&ccaas_registry_lock);
	/* Waits for an RCU grace period, which also covers our readers. */
	tcp_unregister_congestion_control(cca->ops);
	ccaas_ext_unregister(cca);
}
EXPORT_SYMBOL_GPL(ccaas_cca_unregister);

const struct ccaas_cca *ccaas_cca_lookup(const char *name)
{
	const struct ccaas_cca *cca;

	mutex_lock(&ccaas_registry_lock);
	cca = ccaas_registry_find(name);
	mutex_unlock(&ccaas_registry_lock);
	return cca;
}
EXPORT_SYMBOL_GPL(ccaas_cca_lookup);

/*
 * The ccaas CCA whose ops (or fallback ops) are @ops, or NULL. The result
 * stays valid while the caller holds a reference on @ops->owner.
 */
const struct ccaas_cca *ccaas_registry_by_ops(const struct tcp_congestion_ops *ops)
{
	const struct ccaas_cca *cca, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(cca, &ccaas_registry, node) {
		if (cca->ops == ops || cca->fallback_ops == ops) {
			found = cca;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The ops of the first registered transitional CCA (one that can hold any
 * socket, ECN or not: cca_cubic), or NULL. For a caller in an RCU read
 * section, which keeps the ops valid (unregistering waits for a grace
 * period); a module reference must still be taken to keep them.
 */
const struct tcp_congestion_ops *ccaas_registry_transitional(void)
{
	const struct ccaas_cca *cca;

	list_for_each_entry_rcu(cca, &ccaas_registry, node)
		if (cca->features & CCAAS_CCA_F_TRANSITIONAL)
			return cca->ops;
	return NULL;
}

/*
 * May a socket on @from move to @to? Only if @to lists no takeover sources,
 * or lists @from's CCA at a version no newer than @from's. A CCA not built
 * on ccaas has version 0.
 */
bool ccaas_cca_can_take(const struct tcp_congestion_ops *from,
			const struct tcp_congestion_ops *to)
{
	const struct ccaas_cca *src, *dst;
	bool ok = false;
	unsigned int i;

	rcu_read_lock();
	dst = ccaas_registry_by_ops(to);
	if (!dst || !dst->n_takeover) {
		ok = true;
		goto out;
	}
	src = ccaas_registry_by_ops(from);
	for (i = 0; i < dst->n_takeover; i++) {
		const struct ccaas_takeover *t = &dst->takeover[i];

		if (!strcmp(t->name, src ? src->ops->name : from->name) &&
		    (src ? src->version : 0) >= t->min_version) {
			ok = true;
			break;
		}
	}
out:
	rcu_read_unlock();
	return ok;
}

/**
 * ccaas_cca_param_check - validate one per-rule parameter against a schema
 * @cca: the CCA the rule names, or NULL for a CCA without ccaas schema
 * @name: parameter name
 * @value: requested value
 * @attr: the attribute to point extack at
 * @extack: where to explain a refusal
 *
 * Return: the parameter's index in @cca->params, or -EINVAL.
 */
int ccaas_cca_param_check(const struct ccaas_cca *cca, const char *name,
			  u32 value, const struct nlattr *attr,
			  struct netlink_ext_ack *extack)
{
	unsigned int i;

	if (!cca || !cca->n_params) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "CCA has no parameters");
		return -EINVAL;
	}
	for (i = 0; i < cca->n_params; i++) {
		const struct ccaas_param_spec *p = &cca->params[i];

		if (strcmp(p->name, name))
			continue;
		if (value < p->min || value > p->max) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "parameter value out of the CCA's range");
			return -ERANGE;
		}
		return i;
	}
	NL_SET_ERR_MSG_ATTR(extack, attr, "CCA has no parameter of that name");
	return -EINVAL;
}

/* Fill one message for the CCA called @name: -ENOENT if there is none. */
int ccaas_registry_fill(struct sk_buff *skb, const char *name,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg)
{
	struct ccaas_cca *cca;
	int err = -ENOENT;

	mutex_lock(&ccaas_registry_lock);
	cca = ccaas_registry_find(name);
	if (cca)
		err = fill(skb, cca, arg);
	mutex_unlock(&ccaas_registry_lock);
	return err;
}

/*
 * Fill messages for the CCAs from index *@pos on, until @skb is full.
 * Return: the length of @skb (0 ends the dump), or an error for the first.
 */
int ccaas_registry_dump(struct sk_buff *skb, long *pos,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg)
{
	struct ccaas_cca *cca;
	long i = 0;
	int err = 0;

	mutex_lock(&ccaas_registry_lock);
	list_for_each_entry(cca, &ccaas_registry, node) {
		if (i++ < *pos)
			continue;
		err = fill(skb, cca, arg);
		if (err)
			break;
		(*pos)++;
	}
	mutex_unlock(&ccaas_registry_lock);

	/* A message that did not fit goes into the next skb. */
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}
