// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The plane map of a pool: see ll_plane_map.h. */

#include "ll_plane_map.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lossless.h"

static int ll_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int ll_err(char *buf, unsigned int len, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	errno = saved;
	return -1;
}

/* mkdir -p of path's parent directories. */
static int ll_mkdirs(const char *path)
{
	char dir[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(dir))
		return -1;
	memcpy(dir, path, n + 1);
	for (i = 1; i < n; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -1;
		dir[i] = '/';
	}
	return 0;
}

/* The kernel's description of the map behind fd. */
static int ll_map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (unsigned long)info;
	return ll_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

static int ll_check_layout(int fd, const char *path, char *errmsg,
			   unsigned int errlen)
{
	struct bpf_map_info info;

	if (ll_map_info(fd, &info))
		return ll_err(errmsg, errlen, "%s: cannot inspect the map: %s",
			      path, strerror(errno));
	if (info.type == BPF_MAP_TYPE_ARRAY && info.key_size == 4 &&
	    info.max_entries >= LOSSLESS_PLANE_ENTRIES &&
	    info.value_size < sizeof(struct lossless_plane_tel)) {
		/* The layout only grows (LOSSLESS_PLANE_VERSION): a smaller
		 * value is a plane pinned by an older version.
		 */
		errno = EINVAL;
		return ll_err(errmsg, errlen,
			      "%s is a lossless plane map of an older layout (values of %u bytes; plane version %u needs %zu): remove the pin to have a new plane made",
			      path, info.value_size, LOSSLESS_PLANE_VERSION,
			      sizeof(struct lossless_plane_tel));
	}
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
	    info.value_size < sizeof(struct lossless_plane_tel) ||
	    info.max_entries < LOSSLESS_PLANE_ENTRIES) {
		errno = EINVAL;
		return ll_err(errmsg, errlen,
			      "%s is not a lossless plane map (type %u, key %u, value %u bytes, %u entries; want an array with 4-byte keys, values of at least %zu bytes and %u entries)",
			      path, info.type, info.key_size, info.value_size,
			      info.max_entries, sizeof(struct lossless_plane_tel),
			      LOSSLESS_PLANE_ENTRIES);
	}
	return 0;
}

int ll_plane_map_open(const char *path, int flags, int *created,
		      char *errmsg, unsigned int errlen)
{
	union bpf_attr attr;
	int fd;

	if (created)
		*created = 0;
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	fd = ll_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0 && (errno != ENOENT || !(flags & LL_PLANE_CREATE)))
		return ll_err(errmsg, errlen, "%s: cannot open the plane map: %s",
			      path, strerror(errno));
	if (fd < 0) {
		memset(&attr, 0, sizeof(attr));
		attr.map_type = BPF_MAP_TYPE_ARRAY;
		attr.key_size = 4;
		attr.value_size = sizeof(struct lossless_plane_tel);
		attr.max_entries = LOSSLESS_PLANE_ENTRIES;
		/* Readers mmap it: a snapshot costs no syscall and no copy
		 * of the unused port slots.
		 */
		attr.map_flags = BPF_F_MMAPABLE;
		strncpy(attr.map_name, "ll_plane", sizeof(attr.map_name) - 1);
		fd = ll_bpf(BPF_MAP_CREATE, &attr);
		if (fd < 0)
			return ll_err(errmsg, errlen,
				      "cannot create the plane map for %s: %s",
				      path, strerror(errno));
		memset(&attr, 0, sizeof(attr));
		attr.pathname = (unsigned long)path;
		attr.bpf_fd = fd;
		if (ll_mkdirs(path) || ll_bpf(BPF_OBJ_PIN, &attr)) {
			int e = errno;

			close(fd);
			errno = e;
			return ll_err(errmsg, errlen,
				      "cannot pin the plane map at %s: %s (is it on a mounted bpffs?)",
				      path, strerror(e));
		}
		if (created)
			*created = 1;
	}
	if (ll_check_layout(fd, path, errmsg, errlen)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

unsigned int ll_plane_map_id(int fd)
{
	struct bpf_map_info info;

	return ll_map_info(fd, &info) ? 0 : info.id;
}

int ll_plane_default_path(const char *pool, char *buf, unsigned int len)
{
	int n = snprintf(buf, len, "%s/%s/plane", LL_PLANE_PIN_ROOT, pool);

	return n < 0 || (unsigned int)n >= len ? -1 : 0;
}
