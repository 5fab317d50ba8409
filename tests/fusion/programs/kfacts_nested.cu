// Pipelines of kfacts_nested.cuh's kernels (issue 25): nested-if guards in a header.
#include "kfacts_nested.cuh"

void kn_unsharp(const float *in, float *t1, float *t2, float *out, float alpha, int w, int h)
{
    dim3 block(16, 8);
    dim3 grid((w + 15) / 16, (h + 7) / 8);
    kn_blur<<<grid, block>>>(in, t1, w, h);
    kn_blur<<<grid, block>>>(t1, t2, w, h);
    kn_weigh<<<grid, block>>>(in, t2, out, alpha, w, h);
}

void kn_spelled(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(8, 8);
    dim3 grid((w + 7) / 8, (h + 7) / 8);
    kn_sharp<<<grid, block>>>(in, t, w, h);
    kn_blur<<<grid, block>>>(t, out, w, h);
}

void kn_leaky(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(8, 8);
    dim3 grid((w + 7) / 8, (h + 7) / 8);
    kn_leak<<<grid, block>>>(in, t, w, h);
    kn_blur<<<grid, block>>>(t, out, w, h);
}

void kn_helped(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(8, 8);
    dim3 grid((w + 7) / 8, (h + 7) / 8);
    kn_helper<<<grid, block>>>(in, t, w, h);
    kn_blur<<<grid, block>>>(t, out, w, h);
}
