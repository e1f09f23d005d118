/* Symbolic names of the errnos the block layer status table can produce. */
#ifndef ERRNAME_H
#define ERRNAME_H

#include <errno.h>
#include <stdio.h>

static const char *errname(int err)
{
	static char buf[16];

	switch (err) {
	case 0: return "ok";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOSPC: return "ENOSPC";
	case ENOLINK: return "ENOLINK";
	case EREMOTEIO: return "EREMOTEIO";
	case EBADE: return "EBADE";
	case ENODATA: return "ENODATA";
	case EILSEQ: return "EILSEQ";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case ENODEV: return "ENODEV";
	case EREMCHG: return "EREMCHG";
	case ETOOMANYREFS: return "ETOOMANYREFS";
	case EOVERFLOW: return "EOVERFLOW";
	case ETIME: return "ETIME";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case ENOENT: return "ENOENT";
	case EPERM: return "EPERM";
	case EFAULT: return "EFAULT";
	default:
		snprintf(buf, sizeof(buf), "errno%d", err);
		return buf;
	}
}

#endif
