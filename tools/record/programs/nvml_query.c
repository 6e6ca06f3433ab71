/*
 * nvml_query: what a monitoring agent asks NVML (libnvidia-ml.so.1, loaded at run time so the
 * program builds without the NVML headers): device identity, memory, utilisation, clocks, power,
 * temperature, ECC, MIG mode, running processes, PCIe throughput. Each answer is printed with the
 * NVML return code, so the recording can be matched to what the library made of the driver's answers.
 * Prototypes follow nvml.h of the CUDA 13 toolkit; every handle is an opaque pointer.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef void *dev_t_;
typedef int (*fn_void)(void);
typedef int (*fn_u32p)(unsigned *);
typedef int (*fn_handle)(unsigned, dev_t_ *);
typedef int (*fn_str)(dev_t_, char *, unsigned);
typedef int (*fn_dev_u32p)(dev_t_, unsigned *);
typedef int (*fn_dev_u32_u32p)(dev_t_, unsigned, unsigned *);
typedef int (*fn_dev_2u32p)(dev_t_, unsigned *, unsigned *);
typedef int (*fn_dev_buf)(dev_t_, void *);
typedef int (*fn_dev_cnt_buf)(dev_t_, unsigned *, void *);
typedef int (*fn_sys_str)(char *, unsigned);

static void *lib;

static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p)
        printf("%s: missing\n", name);
    return p;
}

int main(void)
{
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
        printf("dlopen libnvidia-ml.so.1: %s\n", dlerror());
        return 1;
    }
    fn_void init = (fn_void)sym("nvmlInit_v2"), shutdown = (fn_void)sym("nvmlShutdown");
    if (!init || !shutdown)
        return 1;
    printf("nvmlInit_v2 %d\n", init());
    char s[256];
    fn_sys_str drv = (fn_sys_str)sym("nvmlSystemGetDriverVersion");
    if (drv)
        printf("driver %d %s\n", drv(s, sizeof s), drv(s, sizeof s) == 0 ? s : "");
    unsigned n = 0;
    fn_u32p count = (fn_u32p)sym("nvmlDeviceGetCount_v2");
    printf("count %d %u\n", count ? count(&n) : -1, n);
    fn_handle by_index = (fn_handle)sym("nvmlDeviceGetHandleByIndex_v2");
    for (unsigned i = 0; by_index && i < n; i++) {
        dev_t_ d;
        int rc = by_index(i, &d);
        printf("device %u handle %d\n", i, rc);
        if (rc)
            continue;
        static const char *const strs[] = {"nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetSerial",
                                           "nvmlDeviceGetVbiosVersion", "nvmlDeviceGetBoardPartNumber"};
        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
            fn_str f = (fn_str)sym(strs[k]);
            memset(s, 0, sizeof s);
            if (f)
                printf("%s %d %s\n", strs[k], f(d, s, sizeof s), s);
        }
        static const char *const u32s[] = {"nvmlDeviceGetTemperature", "nvmlDeviceGetPowerUsage",
                                           "nvmlDeviceGetFanSpeed", "nvmlDeviceGetPerformanceState",
                                           "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetComputeMode",
                                           "nvmlDeviceGetMinorNumber", "nvmlDeviceGetCurrPcieLinkGeneration",
                                           "nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetPowerManagementLimit",
                                           "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetIndex"};
        for (size_t k = 0; k < sizeof u32s / sizeof u32s[0]; k++) {
            unsigned v = 0;
            int r;
            if (k == 0) {
                fn_dev_u32_u32p f = (fn_dev_u32_u32p)sym(u32s[k]);
                r = f ? f(d, 0, &v) : -1;
            } else {
                fn_dev_u32p f = (fn_dev_u32p)sym(u32s[k]);
                r = f ? f(d, &v) : -1;
            }
            printf("%s %d %u\n", u32s[k], r, v);
        }
        unsigned long long mem[3] = {0};
        fn_dev_buf meminfo = (fn_dev_buf)sym("nvmlDeviceGetMemoryInfo");
        if (meminfo)
            printf("memory %d total %llu free %llu used %llu\n", meminfo(d, mem), mem[0], mem[1], mem[2]);
        unsigned util[2] = {0};
        fn_dev_buf utilf = (fn_dev_buf)sym("nvmlDeviceGetUtilizationRates");
        if (utilf)
            printf("utilisation %d gpu %u mem %u\n", utilf(d, util), util[0], util[1]);
        for (unsigned clk = 0; clk < 4; clk++) {
            unsigned v = 0, m = 0;
            fn_dev_u32_u32p cur = (fn_dev_u32_u32p)sym("nvmlDeviceGetClockInfo");
            fn_dev_u32_u32p max = (fn_dev_u32_u32p)sym("nvmlDeviceGetMaxClockInfo");
            if (cur && max)
                printf("clock %u %d %u max %d %u\n", clk, cur(d, clk, &v), v, max(d, clk, &m), m);
        }
        unsigned cur_mode = 0, pend_mode = 0;
        fn_dev_2u32p mig = (fn_dev_2u32p)sym("nvmlDeviceGetMigMode");
        if (mig)
            printf("mig %d current %u pending %u\n", mig(d, &cur_mode, &pend_mode), cur_mode, pend_mode);
        fn_dev_2u32p ecc = (fn_dev_2u32p)sym("nvmlDeviceGetEccMode");
        if (ecc)
            printf("ecc %d current %u pending %u\n", ecc(d, &cur_mode, &pend_mode), cur_mode, pend_mode);
        fn_dev_u32p gim = (fn_dev_u32p)sym("nvmlDeviceGetMaxMigDeviceCount");
        unsigned v = 0;
        if (gim)
            printf("max mig devices %d %u\n", gim(d, &v), v);
        unsigned char procs[64 * 64];
        unsigned np = 64;
        fn_dev_cnt_buf running = (fn_dev_cnt_buf)sym("nvmlDeviceGetComputeRunningProcesses_v3");
        if (running)
            printf("compute processes %d %u\n", running(d, &np, procs), np);
        unsigned char pci[128];
        fn_dev_buf pcif = (fn_dev_buf)sym("nvmlDeviceGetPciInfo_v3");
        if (pcif)
            printf("pci %d %s\n", pcif(d, pci), pcif(d, pci) == 0 ? (char *)pci : "");
        fn_dev_u32_u32p tput = (fn_dev_u32_u32p)sym("nvmlDeviceGetPcieThroughput");
        if (tput)
            printf("pcie tx %d %u\n", tput(d, 0, &v), v);
        unsigned long long sample_ts = 0;
        unsigned char sample[16 * 128];
        unsigned ns = 128, vt = 0;
        typedef int (*fn_samples)(dev_t_, unsigned, unsigned long long, unsigned *, unsigned *, void *);
        fn_samples samples = (fn_samples)sym("nvmlDeviceGetSamples");
        if (samples)
            printf("samples gpu util %d %u\n", samples(d, 1, sample_ts, &vt, &ns, sample), ns);
    }
    printf("nvmlShutdown %d\n", shutdown());
    return 0;
}
