// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for testing the tc plugin with the real /usr/sbin/tc on a
 * host whose kernel has no lossless qdisc. It wraps tc's rtnetlink I/O:
 *
 *   LL_TC_CAPTURE=FILE  append every RTM_{NEW,DEL}{QDISC,TCLASS} message tc
 *                       sends to FILE (raw nlmsghdr stream, the format of
 *                       `tc monitor file`), then send it as usual. A test
 *                       reads what parse_qopt put on the wire, or checks
 *                       that nothing was sent at all.
 *   LL_TC_DUMP=FILE     answer tc's RTM_GETQDISC / RTM_GETTCLASS dump
 *                       requests with the RTM_NEWQDISC / RTM_NEWTCLASS
 *                       messages in FILE (and NLMSG_DONE) instead of asking
 *                       the kernel, so `tc [-s] [-j] qdisc|class show` runs
 *                       the plugin's print_qopt / print_xstats on crafted
 *                       kernel dumps, JSON included.
 *
 * Everything else (link lookups, ...) goes to the kernel unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int,
			     const struct sockaddr *, socklen_t);
typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);

/* One pending fake dump answer (tc runs one dump at a time). */
static struct {
	int fd;
	char *buf;
	size_t len;
} pending = { .fd = -1 };

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

static int is_netlink(int fd, __u32 *portid)
{
	struct sockaddr_nl sa;
	socklen_t l = sizeof(sa);

	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &l) || sa.nl_family != AF_NETLINK)
		return 0;
	if (portid)
		*portid = sa.nl_pid;
	return 1;
}

static void capture(const struct nlmsghdr *h)
{
	const char *path = getenv("LL_TC_CAPTURE");
	static const char zeros[NLMSG_ALIGNTO];
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	if (write(fd, h, h->nlmsg_len) < 0 ||
	    write(fd, zeros, NLMSG_ALIGN(h->nlmsg_len) - h->nlmsg_len) < 0)
		abort();
	close(fd);
}

static char *read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !(buf = malloc(st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	*len = read(fd, buf, st.st_size) == st.st_size ? (size_t)st.st_size : 0;
	close(fd);
	return buf;
}

/* Build the answer to a dump request: the file's messages of the asked
 * kind, stamped with the request's seq and our port id, then DONE.
 */
static void prepare_dump(int fd, const struct nlmsghdr *req, __u32 portid)
{
	__u16 want = req->nlmsg_type == RTM_GETQDISC ? RTM_NEWQDISC : RTM_NEWTCLASS;
	const char *path = getenv("LL_TC_DUMP");
	size_t flen = 0, off = 0, total = 0;
	char *file, *out;
	struct nlmsghdr *h;

	file = read_file(path, &flen);
	out = calloc(1, flen + NLMSG_SPACE(sizeof(int)));
	if (!out)
		abort();
	while (file && off + sizeof(*h) <= flen) {
		h = (struct nlmsghdr *)(file + off);
		if (h->nlmsg_len < sizeof(*h) || off + h->nlmsg_len > flen)
			break;
		if (h->nlmsg_type == want) {
			memcpy(out + total, h, h->nlmsg_len);
			h = (struct nlmsghdr *)(out + total);
			h->nlmsg_seq = req->nlmsg_seq;
			h->nlmsg_pid = portid;
			h->nlmsg_flags |= NLM_F_MULTI;
			total += NLMSG_ALIGN(h->nlmsg_len);
		}
		off += NLMSG_ALIGN(((struct nlmsghdr *)(file + off))->nlmsg_len);
	}
	free(file);
	h = (struct nlmsghdr *)(out + total);
	h->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	h->nlmsg_type = NLMSG_DONE;
	h->nlmsg_flags = NLM_F_MULTI;
	h->nlmsg_seq = req->nlmsg_seq;
	h->nlmsg_pid = portid;
	total += NLMSG_SPACE(sizeof(int));

	free(pending.buf);
	pending.fd = fd;
	pending.buf = out;
	pending.len = total;
}

/* Returns 1 when the request was answered here and must not be sent. */
static int inspect(int fd, const void *data, size_t len)
{
	const struct nlmsghdr *h = data;
	int faked = 0;
	__u32 portid;

	if (!is_netlink(fd, &portid))
		return 0;
	for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		switch (h->nlmsg_type) {
		case RTM_NEWQDISC:
		case RTM_DELQDISC:
		case RTM_NEWTCLASS:
		case RTM_DELTCLASS:
			capture(h);
			break;
		case RTM_GETQDISC:
		case RTM_GETTCLASS:
			if (getenv("LL_TC_DUMP") && (h->nlmsg_flags & NLM_F_DUMP)) {
				prepare_dump(fd, h, portid);
				faked = 1;
			}
			break;
		}
	}
	return faked;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static sendmsg_fn next;
	size_t len = 0, i;
	ssize_t ret;
	char *flat;

	if (!next)
		next = (sendmsg_fn)real("sendmsg");
	for (i = 0; i < msg->msg_iovlen; i++)
		len += msg->msg_iov[i].iov_len;
	flat = malloc(len ? len : 1);
	if (!flat)
		abort();
	for (len = 0, i = 0; i < msg->msg_iovlen; i++) {
		memcpy(flat + len, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		len += msg->msg_iov[i].iov_len;
	}
	ret = inspect(fd, flat, len) ? (ssize_t)len : next(fd, msg, flags);
	free(flat);
	return ret;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	static sendto_fn next;

	if (!next)
		next = (sendto_fn)real("sendto");
	if (inspect(fd, buf, len))
		return len;
	return next(fd, buf, len, flags, to, tolen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static recvmsg_fn next;
	size_t off = 0, i, n;

	if (!next)
		next = (recvmsg_fn)real("recvmsg");
	if (fd != pending.fd || !pending.buf)
		return next(fd, msg, flags);

	for (i = 0; i < msg->msg_iovlen && off < pending.len; i++) {
		n = msg->msg_iov[i].iov_len;
		if (n > pending.len - off)
			n = pending.len - off;
		memcpy(msg->msg_iov[i].iov_base, pending.buf + off, n);
		off += n;
	}
	if (msg->msg_name && msg->msg_namelen >= sizeof(struct sockaddr_nl)) {
		struct sockaddr_nl *sa = msg->msg_name;

		memset(sa, 0, sizeof(*sa));
		sa->nl_family = AF_NETLINK;	/* from the kernel: pid 0 */
		msg->msg_namelen = sizeof(*sa);
	}
	msg->msg_controllen = 0;
	msg->msg_flags = off < pending.len ? MSG_TRUNC : 0;
	n = pending.len;
	if (!(flags & MSG_PEEK)) {
		free(pending.buf);
		pending.buf = NULL;
		pending.fd = -1;
	}
	return (flags & (MSG_PEEK | MSG_TRUNC)) ? (ssize_t)n : (ssize_t)off;
}
