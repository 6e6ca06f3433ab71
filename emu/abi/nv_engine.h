/*
 * NV2080_ENGINE_TYPE_* values (cl2080_notification.h, driver 580.x; docs/driver-sources.md
 * section F). Own definitions.
 */
#ifndef NVEMU_ABI_NV_ENGINE_H
#define NVEMU_ABI_NV_ENGINE_H

#define NV2080_ENGINE_TYPE_NULL              0x00000000u
#define NV2080_ENGINE_TYPE_GRAPHICS          0x00000001u
#define NV2080_ENGINE_TYPE_GR0               0x00000001u
#define NV2080_ENGINE_TYPE_GR(i)             (0x00000001u + (i))      /* GR0..GR7 = 1..8 */
#define NV2080_ENGINE_TYPE_GR7               0x00000008u
#define NV2080_ENGINE_TYPE_COPY0             0x00000009u
#define NV2080_ENGINE_TYPE_COPY(i)           (0x00000009u + (i))      /* COPY0..COPY9 = 0x09..0x12 */
#define NV2080_ENGINE_TYPE_COPY9             0x00000012u
#define NV2080_ENGINE_TYPE_NVDEC0            0x00000013u
#define NV2080_ENGINE_TYPE_NVDEC(i)          (0x00000013u + (i))      /* NVDEC0..7 = 0x13..0x1A */
#define NV2080_ENGINE_TYPE_NVDEC7            0x0000001Au
#define NV2080_ENGINE_TYPE_NVENC0            0x0000001Bu
#define NV2080_ENGINE_TYPE_NVENC1            0x0000001Cu
#define NV2080_ENGINE_TYPE_NVENC2            0x0000001Du
#define NV2080_ENGINE_TYPE_SW                0x00000022u
#define NV2080_ENGINE_TYPE_SEC2              0x00000026u
#define NV2080_ENGINE_TYPE_HOST              0x00000027u
#define NV2080_ENGINE_TYPE_NVJPEG0           0x0000002Bu
#define NV2080_ENGINE_TYPE_OFA0              0x00000033u
#define NV2080_ENGINE_TYPE_COPY10            0x00000034u
#define NV2080_ENGINE_TYPE_COPY19            0x0000003Du
#define NV2080_ENGINE_TYPE_OFA1              0x0000003Eu
#define NV2080_ENGINE_TYPE_NVENC3            0x0000003Fu
#define NV2080_ENGINE_TYPE_COMP_DECOMP_COPY0 0x00000040u
#define NV2080_ENGINE_TYPE_COMP_DECOMP_COPY19 0x00000053u
#define NV2080_ENGINE_TYPE_LAST              0x00000054u
#define NV2080_ENGINE_TYPE_ALLENGINES        0xFFFFFFFFu

#define NV2080_ENGINE_TYPE_IS_GR(t)   ((t) >= NV2080_ENGINE_TYPE_GR0 && (t) <= NV2080_ENGINE_TYPE_GR7)
#define NV2080_ENGINE_TYPE_IS_COPY(t) (((t) >= NV2080_ENGINE_TYPE_COPY0 && (t) <= NV2080_ENGINE_TYPE_COPY9) || \
                                       ((t) >= NV2080_ENGINE_TYPE_COPY10 && (t) <= NV2080_ENGINE_TYPE_COPY19))

#endif
