/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The plane map of a pool (kernel/uapi/lossless.h, "shared-state plane"):
 * open it where it is pinned, or create and pin it. Plain C on raw bpf(2)
 * calls, so the tc plugin (which must not pull libbpf into tc) and the
 * daemon share one implementation of the layout.
 */
#ifndef LL_PLANE_MAP_H
#define LL_PLANE_MAP_H

#ifdef __cplusplus
extern "C" {
#endif

#define LL_PLANE_PIN_ROOT "/sys/fs/bpf/lossless"

enum ll_plane_open_flags {
	LL_PLANE_OPEN = 0,	/* fail if not pinned */
	LL_PLANE_CREATE = 1,	/* create and pin it if not pinned */
};

/*
 * Open (or create, with LL_PLANE_CREATE; parent directories on bpffs are
 * created too) the plane map pinned at path and check its layout. Returns
 * a file descriptor, or -1 with errmsg (if not NULL) holding a sentence
 * that names path and the reason. *created (if not NULL) tells whether
 * this call created it.
 */
int ll_plane_map_open(const char *path, int flags, int *created,
		      char *errmsg, unsigned int errlen);

/* The id of the map behind fd (what tc shows as "plane id"), or 0. */
unsigned int ll_plane_map_id(int fd);

/* The default pin path of pool NAME: LL_PLANE_PIN_ROOT/NAME/plane. */
int ll_plane_default_path(const char *pool, char *buf, unsigned int len);

#ifdef __cplusplus
}
#endif

#endif /* LL_PLANE_MAP_H */
