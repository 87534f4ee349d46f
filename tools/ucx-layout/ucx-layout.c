/*
 * ucx-layout.c - the UCX facts fiucx hard-codes, as the installed headers
 * have them.
 *
 * fiucx writes UCX structs by offset (ucx-adapter's UcxLayout) and passes
 * enum and flag values as numbers (UcxConstants), because it calls libucp
 * through FFM downcalls and has no headers at run time.  This program prints
 * each of those facts from the headers of the UCX it is compiled against, one
 * line per fact, "NAME VALUE" (decimal):
 *
 *   UCP_API_MAJOR 1                   the headers' version, so the facts can
 *   UCP_API_MINOR 13                  be matched with the libucp they describe
 *   ucp_request_param_t.flags 4       offsetof, named as UcxLayout.fields()
 *   sizeof(ucp_request_param_t) 72    sizeof
 *   width(ucp_request_param_t.flags) 4  sizeof of the field, the width fiucx
 *                                     reads or writes it with
 *   UCP_ATOMIC_OP_ADD 0               a constant, named by its C name
 *
 * UcxLayoutProbeTest (ucx-adapter) runs it through run.sh and compares every
 * line with the Java side, wherever cc and libucx-dev are installed.
 *
 * Left out: the worker address constants of UcxConstants
 * (UCP_ADDRESS_VERSION_*, UCP_ADDRESS_FLAGS_SHIFT_V1,
 * UCP_ADDRESS_HEADER_FLAG_WORKER_UUID, UCP_NULL_RESOURCE).  They are defined
 * in UCX's sources (ucp/wireup/address.c, ucp/core/ucp_types.h), not in any
 * installed header; UcxWorkerAddressTest walks real addresses with them
 * instead.
 *
 * Run: tools/ucx-layout/run.sh (compiles this with cc into a temporary
 * directory and runs it; headers elsewhere: CPPFLAGS=-I/prefix/include).
 * Nothing is linked: every value is known at compile time.
 */
#include <stddef.h>
#include <stdio.h>

#include <ucp/api/ucp.h>
#include <ucs/config/types.h>
#include <ucs/type/status.h>

/*
 * libucx-dev installs global_opts.h in 1.13.1, 1.18.1 and 1.23.0, but it is
 * UCS's internal configuration, not UCP's API: without it the log level line
 * is missing and the test says so, rather than the probe not compiling.
 */
#if defined(__has_include)
#if __has_include(<ucs/config/global_opts.h>)
#include <ucs/config/global_opts.h>
#define HAVE_GLOBAL_OPTS 1
#endif
#endif

#define FACT(name, value) printf("%s %lld\n", (name), (long long)(value))
#define CONSTANT(c) FACT(#c, (c))
#define SIZE(type) FACT("sizeof(" #type ")", sizeof(type))
#define OFFSET(type, member) FACT(#type "." #member, offsetof(type, member))
#define WIDTH(type, member) \
	FACT("width(" #type "." #member ")", sizeof(((type *)0)->member))

int main(void)
{
	CONSTANT(UCP_API_MAJOR);
	CONSTANT(UCP_API_MINOR);

	/* UcxLayout.fields(), in its order */
	SIZE(ucp_request_param_t);
	OFFSET(ucp_request_param_t, op_attr_mask);
	OFFSET(ucp_request_param_t, flags);
	OFFSET(ucp_request_param_t, request);
	OFFSET(ucp_request_param_t, cb);
	OFFSET(ucp_request_param_t, datatype);
	OFFSET(ucp_request_param_t, user_data);
	OFFSET(ucp_request_param_t, reply_buffer);
	OFFSET(ucp_context_attr_t, field_mask);
	OFFSET(ucp_context_attr_t, request_size);
#ifdef HAVE_GLOBAL_OPTS
	OFFSET(ucs_global_opts_t, log_component.log_level);
#else
	printf("# ucs/config/global_opts.h is not installed\n");
#endif

	/* fiucx allocates UcxLayout.CONTEXT_ATTR_ALLOCATED bytes for it */
	SIZE(ucp_context_attr_t);

	/* the widths fiucx accesses the fields and return values with */
	WIDTH(ucp_request_param_t, op_attr_mask);
	WIDTH(ucp_request_param_t, flags);
	WIDTH(ucp_request_param_t, request);
	WIDTH(ucp_request_param_t, cb);
	WIDTH(ucp_request_param_t, datatype);
	WIDTH(ucp_request_param_t, user_data);
	WIDTH(ucp_request_param_t, reply_buffer);
	WIDTH(ucp_context_attr_t, field_mask);
	WIDTH(ucp_context_attr_t, request_size);
#ifdef HAVE_GLOBAL_OPTS
	WIDTH(ucs_global_opts_t, log_component.log_level);
#endif
	SIZE(ucs_status_t);
	SIZE(ucs_status_ptr_t);

	/* ucp/api/ucp.h */
	CONSTANT(UCP_ATOMIC_OP_ADD);
	CONSTANT(UCP_ATOMIC_OP_SWAP);
	CONSTANT(UCP_ATOMIC_OP_CSWAP);
	CONSTANT(UCP_ATOMIC_OP_AND);
	CONSTANT(UCP_ATOMIC_OP_OR);
	CONSTANT(UCP_ATOMIC_OP_XOR);
	CONSTANT(UCP_OP_ATTR_FIELD_REQUEST);
	CONSTANT(UCP_OP_ATTR_FIELD_CALLBACK);
	CONSTANT(UCP_OP_ATTR_FIELD_USER_DATA);
	CONSTANT(UCP_OP_ATTR_FIELD_DATATYPE);
	CONSTANT(UCP_OP_ATTR_FIELD_FLAGS);
	CONSTANT(UCP_OP_ATTR_FIELD_REPLY_BUFFER);
	CONSTANT(UCP_OP_ATTR_FLAG_NO_IMM_CMPL);
	CONSTANT(ucp_dt_make_contig(4));
	CONSTANT(ucp_dt_make_contig(8));
	CONSTANT(UCP_EP_CLOSE_FLAG_FORCE);
	CONSTANT(UCP_AM_SEND_FLAG_REPLY);
	CONSTANT(UCP_AM_SEND_FLAG_EAGER);
	CONSTANT(UCP_AM_FLAG_WHOLE_MSG);
	CONSTANT(UCP_MEM_MAP_PROT_LOCAL_READ);
	CONSTANT(UCP_MEM_MAP_PROT_LOCAL_WRITE);
	CONSTANT(UCP_MEM_MAP_PROT_REMOTE_READ);
	CONSTANT(UCP_MEM_MAP_PROT_REMOTE_WRITE);
	CONSTANT(UCP_ATTR_FIELD_REQUEST_SIZE);

	/* ucs/type/status.h */
	CONSTANT(UCS_OK);
	CONSTANT(UCS_INPROGRESS);
	CONSTANT(UCS_ERR_NO_MESSAGE);
	CONSTANT(UCS_ERR_NO_RESOURCE);
	CONSTANT(UCS_ERR_IO_ERROR);
	CONSTANT(UCS_ERR_NO_MEMORY);
	CONSTANT(UCS_ERR_INVALID_PARAM);
	CONSTANT(UCS_ERR_UNREACHABLE);
	CONSTANT(UCS_ERR_INVALID_ADDR);
	CONSTANT(UCS_ERR_NOT_IMPLEMENTED);
	CONSTANT(UCS_ERR_MESSAGE_TRUNCATED);
	CONSTANT(UCS_ERR_NO_PROGRESS);
	CONSTANT(UCS_ERR_BUFFER_TOO_SMALL);
	CONSTANT(UCS_ERR_NO_ELEM);
	CONSTANT(UCS_ERR_SOME_CONNECTS_FAILED);
	CONSTANT(UCS_ERR_NO_DEVICE);
	CONSTANT(UCS_ERR_BUSY);
	CONSTANT(UCS_ERR_CANCELED);
	CONSTANT(UCS_ERR_SHMEM_SEGMENT);
	CONSTANT(UCS_ERR_ALREADY_EXISTS);
	CONSTANT(UCS_ERR_OUT_OF_RANGE);
	CONSTANT(UCS_ERR_TIMED_OUT);
	CONSTANT(UCS_ERR_EXCEEDS_LIMIT);
	CONSTANT(UCS_ERR_UNSUPPORTED);
	CONSTANT(UCS_ERR_REJECTED);
	CONSTANT(UCS_ERR_NOT_CONNECTED);
	CONSTANT(UCS_ERR_CONNECTION_RESET);
	CONSTANT(UCS_ERR_FIRST_LINK_FAILURE);
	CONSTANT(UCS_ERR_LAST_LINK_FAILURE);
	CONSTANT(UCS_ERR_FIRST_ENDPOINT_FAILURE);
	CONSTANT(UCS_ERR_ENDPOINT_TIMEOUT);
	CONSTANT(UCS_ERR_LAST_ENDPOINT_FAILURE);
	CONSTANT(UCS_ERR_LAST);

	/* ucs/config/types.h */
	CONSTANT(UCS_CONFIG_PRINT_CONFIG);
	CONSTANT(UCS_LOG_LEVEL_FATAL);
	CONSTANT(UCS_LOG_LEVEL_ERROR);
	CONSTANT(UCS_LOG_LEVEL_WARN);
	return 0;
}
