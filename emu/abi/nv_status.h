/*
 * NV_STATUS values (facts from nvstatuscodes.h, driver 580.x; see
 * docs/driver-sources.md §G). Own definitions.
 */
#ifndef NVEMU_ABI_NV_STATUS_H
#define NVEMU_ABI_NV_STATUS_H

#include <stdint.h>

typedef uint32_t NV_STATUS;

#define NV_OK                               0x00000000u
#define NV_ERR_BUFFER_TOO_SMALL             0x00000002u
#define NV_ERR_BUSY_RETRY                   0x00000003u
#define NV_ERR_CARD_NOT_PRESENT             0x00000005u
#define NV_ERR_GPU_IS_LOST                  0x0000000Fu
#define NV_ERR_GPU_IN_FULLCHIP_RESET        0x00000010u
#define NV_ERR_ILLEGAL_ACTION               0x00000016u
#define NV_ERR_IN_USE                       0x00000017u
#define NV_ERR_INSERT_DUPLICATE_NAME        0x00000019u
#define NV_ERR_INSUFFICIENT_RESOURCES       0x0000001Au
#define NV_ERR_INSUFFICIENT_PERMISSIONS     0x0000001Bu
#define NV_ERR_INVALID_ADDRESS              0x0000001Eu
#define NV_ERR_INVALID_ARGUMENT             0x0000001Fu
#define NV_ERR_INVALID_CHANNEL              0x00000021u
#define NV_ERR_INVALID_CLASS                0x00000022u
#define NV_ERR_INVALID_CLIENT               0x00000023u
#define NV_ERR_INVALID_COMMAND              0x00000024u
#define NV_ERR_INVALID_DATA                 0x00000025u
#define NV_ERR_INVALID_DEVICE               0x00000026u
#define NV_ERR_INVALID_EVENT                0x00000028u
#define NV_ERR_INVALID_FLAGS                0x00000029u
#define NV_ERR_INVALID_INDEX                0x0000002Cu
#define NV_ERR_INVALID_LIMIT                0x0000002Eu
#define NV_ERR_INVALID_LOCK_STATE           0x0000002Fu
#define NV_ERR_INVALID_OBJECT               0x00000031u
#define NV_ERR_INVALID_OBJECT_HANDLE        0x00000033u
#define NV_ERR_INVALID_OBJECT_NEW           0x00000034u
#define NV_ERR_INVALID_OBJECT_OLD           0x00000035u
#define NV_ERR_INVALID_OBJECT_PARENT        0x00000036u
#define NV_ERR_INVALID_OFFSET               0x00000037u
#define NV_ERR_INVALID_OPERATION            0x00000038u
#define NV_ERR_INVALID_PARAM_STRUCT         0x0000003Au
#define NV_ERR_INVALID_PARAMETER            0x0000003Bu
#define NV_ERR_INVALID_POINTER              0x0000003Du
#define NV_ERR_INVALID_REQUEST              0x0000003Fu
#define NV_ERR_INVALID_STATE                0x00000040u
#define NV_ERR_MISSING_TABLE_ENTRY          0x0000004Au
#define NV_ERR_NO_FREE_FIFOS                0x0000004Fu
#define NV_ERR_NO_MEMORY                    0x00000051u
#define NV_ERR_NOT_READY                    0x00000055u
#define NV_ERR_NOT_SUPPORTED                0x00000056u
#define NV_ERR_OBJECT_NOT_FOUND             0x00000057u
#define NV_ERR_OBJECT_TYPE_MISMATCH         0x00000058u
#define NV_ERR_OPERATING_SYSTEM             0x00000059u
#define NV_ERR_OUT_OF_RANGE                 0x0000005Bu
#define NV_ERR_RESET_REQUIRED               0x00000062u
#define NV_ERR_STATE_IN_USE                 0x00000063u
#define NV_ERR_TIMEOUT                      0x00000065u
#define NV_ERR_TIMEOUT_RETRY                0x00000066u
#define NV_ERR_RESOURCE_LOST                0x0000006Eu
#define NV_ERR_TEST_ONLY_CODE_NOT_ENABLED   0x0000007Eu
#define NV_ERR_GENERIC                      0x0000FFFFu
#define NV_WARN_MORE_PROCESSING_REQUIRED    0x00010005u
#define NV_WARN_NOTHING_TO_DO               0x00010006u

/* Symbolic name of a status ("NV_ERR_INVALID_CLIENT"), or "NV_STATUS_0x..." for unknown values
 * (the latter in a static buffer of the calling thread). */
const char *nv_status_name(NV_STATUS st);

#endif
