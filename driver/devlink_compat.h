/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: the devlink API differences between the kernels snode.ko builds
 * for (Debian's 6.1 and 6.12), in one place.
 *
 * As for the other API differences, driver/Kbuild detects them in the
 * kernel's include/net/devlink.h rather than from LINUX_VERSION_CODE, so
 * that a distribution kernel with a backported change builds too:
 *   SNODE_HAVE_DEVLINK_INFO_DRIVER_NAME  devlink_info_driver_name_put()
 *                                        exists (gone in 6.2)
 *   SNODE_DEVLINK_FMSG_INT               devlink_fmsg_*() return an int
 *                                        (void from 6.7 on)
 */
#ifndef _SNODE_DEVLINK_COMPAT_H_
#define _SNODE_DEVLINK_COMPAT_H_

#include <net/devlink.h>

/*
 * Before 6.2 a driver names itself in dev info; from 6.2 on the devlink
 * core fills in the name of the bound driver and the helper is gone.
 */
static inline int snode_dl_info_driver_name_put(struct devlink_info_req *req)
{
#ifdef SNODE_HAVE_DEVLINK_INFO_DRIVER_NAME
	return devlink_info_driver_name_put(req, KBUILD_MODNAME);
#else
	return 0;
#endif
}

/**
 * struct snode_fmsg - a devlink formatted message being filled
 * @fmsg: the message
 * @err: the first error of a put; later puts are skipped
 *
 * Until 6.7 every devlink_fmsg_*() returns an errno that the caller must
 * check; from 6.7 on they return nothing and the message remembers its
 * first error itself. The driver fills messages through the snode_fmsg_*()
 * helpers, which behave as 6.7 does on both: after a failed put nothing
 * more is added, and the callback returns @err (always 0 from 6.7 on,
 * where the core reports the message's own error).
 */
struct snode_fmsg {
	struct devlink_fmsg *fmsg;
	int err;
};

#ifdef SNODE_DEVLINK_FMSG_INT
#define SNODE_FMSG_ERR(call)	(call)
#else
#define SNODE_FMSG_ERR(call)	((call), 0)
#endif

static inline void snode_fmsg_obj_start(struct snode_fmsg *m)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_obj_nest_start(m->fmsg));
}

static inline void snode_fmsg_obj_end(struct snode_fmsg *m)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_obj_nest_end(m->fmsg));
}

static inline void snode_fmsg_pair_start(struct snode_fmsg *m, const char *name)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_pair_nest_start(m->fmsg, name));
}

static inline void snode_fmsg_pair_end(struct snode_fmsg *m)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_pair_nest_end(m->fmsg));
}

static inline void snode_fmsg_arr_start(struct snode_fmsg *m, const char *name)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_arr_pair_nest_start(m->fmsg, name));
}

static inline void snode_fmsg_arr_end(struct snode_fmsg *m)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_arr_pair_nest_end(m->fmsg));
}

static inline void snode_fmsg_bool(struct snode_fmsg *m,
				   const char *name, bool value)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_bool_pair_put(m->fmsg, name, value));
}

static inline void snode_fmsg_u32(struct snode_fmsg *m,
				  const char *name, u32 value)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_u32_pair_put(m->fmsg, name, value));
}

static inline void snode_fmsg_u64(struct snode_fmsg *m,
				  const char *name, u64 value)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_u64_pair_put(m->fmsg, name, value));
}

static inline void snode_fmsg_str(struct snode_fmsg *m,
				  const char *name, const char *value)
{
	if (!m->err)
		m->err = SNODE_FMSG_ERR(devlink_fmsg_string_pair_put(m->fmsg, name, value));
}

#endif /* _SNODE_DEVLINK_COMPAT_H_ */
