/* The bf16 peak that matches what a component ran on (roofline_cpu.h).
 * A CPU has two bf16 units of very different rates (AMX tiles several
 * times the AVX-512 BF16 dot), so one "bf16 peak" would flatter a dot
 * kernel on an AMX machine or shame an AMX one; the component says which
 * it used, and an fp32 component gets no bf16 percent at all. */
#include "report/roofline_cpu.h"

#include <math.h>
#include <string.h>

static const char *isa_note(const harness_notes *notes)
{
    for (size_t i = 0; notes && i < notes->n; i++)
        if (strcmp(notes->note[i].key, "isa") == 0)
            return notes->note[i].value;
    return NULL;
}

double harness_roofline_bf16_peak(const harness_peaks *p, const harness_notes *notes)
{
    if (!p->from_machine_file)     /* a GPU: the datasheet's dense bf16 */
        return p->bf16_flops_per_s > 0 ? p->bf16_flops_per_s : NAN;
    const char *isa = isa_note(notes);
    if (!isa)
        return NAN;
    if (strstr(isa, "amx") && p->cpu_amx_bf16_flops_per_s > 0)
        return p->cpu_amx_bf16_flops_per_s;
    if (strstr(isa, "avx512_bf16") && p->cpu_bf16_dot_flops_per_s > 0)
        return p->cpu_bf16_dot_flops_per_s;
    return NAN;
}
