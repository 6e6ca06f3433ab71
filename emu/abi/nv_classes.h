/*
 * RM class ids (driver 580.x class/cl*.h numbers; own definitions). Covers the
 * classes of docs/driver-sources.md §D and every class in the H200 libcuda trace
 * (fixtures/replay/h200-580.159.04-libcuda-context.log).
 */
#ifndef NVEMU_ABI_NV_CLASSES_H
#define NVEMU_ABI_NV_CLASSES_H

#include <stdint.h>

/* root (client) classes: the ioctl path rewrites 0x0 and 0x1 to 0x41 */
#define NV01_ROOT                       0x00000000u
#define NV01_ROOT_NON_PRIV              0x00000001u
#define NV01_ROOT_CLIENT                0x00000041u

/* events */
#define NV01_EVENT                      0x00000005u
#define NV01_EVENT_KERNEL_CALLBACK      0x00000078u
#define NV01_EVENT_OS_EVENT             0x00000079u
#define NV01_EVENT_KERNEL_CALLBACK_EX   0x0000007Eu

/* memory */
#define NV01_MEMORY_SYSTEM              0x0000003Eu
#define NV01_MEMORY_LOCAL_USER          0x00000040u
#define NV01_MEMORY_VIRTUAL             0x00000070u
#define NV01_MEMORY_SYSTEM_OS_DESCRIPTOR 0x00000071u
#define NV50_MEMORY_VIRTUAL             0x000050A0u
#define NV_MEMORY_FABRIC                0x000000F8u  /* cl00f8.h: fabric (FLA) memory, NVLink-exportable */

/* device tree */
#define NV01_DEVICE_0                   0x00000080u
#define NV20_SUBDEVICE_0                0x00002080u
#define MPS_COMPUTE                     0x0000900Eu  /* cl900e.h: a client of the MPS server */
#define NV2081_BINAPI                   0x00002081u
#define GF100_SUBDEVICE_MASTER          0x000090E6u
#define FERMI_VASPACE_A                 0x000090F1u
#define KERNEL_GRAPHICS_CONTEXT         0x00000090u
#define RM_USER_SHARED_DATA             0x000000DEu
#define NV50_P2P                        0x0000503Bu  /* cl503b.h: a P2P mapping between two subdevices */
#define NV50_THIRD_PARTY_P2P            0x0000503Cu
#define GT200_DEBUGGER                  0x000083DEu
#define NV_CONFIDENTIAL_COMPUTE         0x0000CB33u

/* FIFO: channel groups, subcontexts, channels */
#define KEPLER_CHANNEL_GROUP_A          0x0000A06Cu
#define FERMI_CONTEXT_SHARE_A           0x00009067u
/* channel classes of older GPUs: no RS_ENTRY in 580 for allocation, but their control
   interfaces (906F, A06F) are what every newer channel class answers */
#define GF100_CHANNEL_GPFIFO            0x0000906Fu
#define KEPLER_CHANNEL_GPFIFO_A         0x0000A06Fu
#define VOLTA_CHANNEL_GPFIFO_A          0x0000C36Fu
#define TURING_CHANNEL_GPFIFO_A         0x0000C46Fu
#define AMPERE_CHANNEL_GPFIFO_A         0x0000C56Fu
#define HOPPER_CHANNEL_GPFIFO_A         0x0000C86Fu
#define BLACKWELL_CHANNEL_GPFIFO_A      0x0000C96Fu
#define BLACKWELL_CHANNEL_GPFIFO_B      0x0000CA6Fu

/* compute engine objects (under a channel) */
#define VOLTA_COMPUTE_A                 0x0000C3C0u
#define TURING_COMPUTE_A                0x0000C5C0u
#define AMPERE_COMPUTE_A                0x0000C6C0u
#define AMPERE_COMPUTE_B                0x0000C7C0u
#define ADA_COMPUTE_A                   0x0000C9C0u
#define HOPPER_COMPUTE_A                0x0000CBC0u
#define BLACKWELL_COMPUTE_A             0x0000CDC0u
#define BLACKWELL_COMPUTE_B             0x0000CEC0u

/* copy engine objects (under a channel) */
#define VOLTA_DMA_COPY_A                0x0000C3B5u
#define TURING_DMA_COPY_A               0x0000C5B5u
#define AMPERE_DMA_COPY_A               0x0000C6B5u
#define AMPERE_DMA_COPY_B               0x0000C7B5u
#define HOPPER_DMA_COPY_A               0x0000C8B5u
#define BLACKWELL_DMA_COPY_A            0x0000C9B5u
#define BLACKWELL_DMA_COPY_B            0x0000CAB5u

/* usermode (doorbell) regions (under a subdevice) */
#define VOLTA_USERMODE_A                0x0000C361u
#define TURING_USERMODE_A               0x0000C461u
#define AMPERE_USERMODE_A               0x0000C561u
#define HOPPER_USERMODE_A               0x0000C661u
#define BLACKWELL_USERMODE_A            0x0000C761u

/* monitoring and diagnostics (class/clc639.h, clc640.h, cl90e7.h, cl208f.h, cl90cc.h, cl0073.h) */
#define AMPERE_SMC_CONFIG_SESSION       0x0000C639u
#define AMPERE_SMC_MONITOR_SESSION      0x0000C640u
#define GF100_SUBDEVICE_INFOROM         0x000090E7u
#define NV20_SUBDEVICE_DIAG             0x0000208Fu
#define GF100_PROFILER                  0x000090CCu
#define NV04_DISPLAY_COMMON             0x00000073u

/* The class part of a control command word (cmd = class << 16 | category << 8 | index). */
#define NV_CTRL_CMD_CLASS(cmd)          (((uint32_t)(cmd) >> 16) & 0xFFFFu)

#endif
