// SPDX-License-Identifier: GPL-2.0
/*
 * Resolving a CCA name to its tcp_congestion_ops.
 *
 * The TCP stack does not export its lookup (tcp_ca_find) to modules, so the
 * core asks the stack the way an application would: it creates a scratch
 * kernel TCP socket in the caller's namespace and sets TCP_CONGESTION on it.
 * That also autoloads tcp_<name> modules, honours the namespace's
 * restrictions for unprivileged callers, and works for every CCA (in-tree,
 * ccaas, third party). The socket's ops then say which CCA it is; a module
 * reference is taken before the socket (and its reference) goes away.
 *
 * BPF CCAs are refused: their ops->owner is BPF_MODULE_OWNER, a poisoned
 * pointer, and the stack's way to pin them (bpf_try_module_get()) is not
 * open to modules. So a ccaas_cca_ref never holds a BPF CCA, and ccaas
 * never moves a socket onto one (nor off one: ccaas_sk_switch()).
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>

#include "core.h"
#include "sock.h"

/* May sleep: process context, no locks held but the caller's mutexes. */
int ccaas_cca_resolve(struct net *net, const char *name,
		      struct ccaas_cca_ref *ref, struct netlink_ext_ack *extack)
{
	const struct tcp_congestion_ops *ops;
	struct socket *sock;
	int err;

	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create a socket to resolve the CCA");
		return err;
	}

	err = sock->ops->setsockopt(sock, SOL_TCP, TCP_CONGESTION,
				    KERNEL_SOCKPTR((char *)name), strlen(name));
	if (err) {
		NL_SET_ERR_MSG(extack, "unknown congestion control");
		goto out;
	}

	lock_sock(sock->sk);
	ops = inet_csk(sock->sk)->icsk_ca_ops;
	if (ccaas_ops_bpf(ops)) {
		err = -EOPNOTSUPP;
		NL_SET_ERR_MSG(extack,
			       "a BPF CCA: ccaas cannot move sockets onto it or off it");
	} else if (!try_module_get(ops->owner)) {
		err = -ENOENT;
		NL_SET_ERR_MSG(extack, "congestion control is being unloaded");
	}
	release_sock(sock->sk);
	if (err)
		goto out;

	ref->ops = ops;
	ref->cca = ccaas_registry_by_ops(ops);
out:
	sock_release(sock);
	return err;
}

void ccaas_cca_ref_put(struct ccaas_cca_ref *ref)
{
	if (!ref->ops)
		return;
	module_put(ref->ops->owner);
	ref->ops = NULL;
	ref->cca = NULL;
}
