// Hardware ground truth for the shared-memory instructions of tensor-core kernels:
// ldmatrix (LDSM) and stmatrix (STSM), .x1/.x2/.x4, plain and .trans, and cp.async
// (LDGSTS) of 4, 8 and 16 bytes (.ca; .cg for 16). One launch of one warp per pattern,
// profiled by ncu (validate/probe/run_probe.sh --matrix).
//
// Pattern file (validate/probe/gen_matrix_patterns.py), one line each:
//   NAME SHAPE N | a0 a1 ... a(N-1)
// SHAPE: ldsm_x1, ldsm_x2, ldsm_x4, ldsm_x1_t, ldsm_x2_t, ldsm_x4_t, stsm_... (the same),
// cpasync4_ca, cpasync8_ca, cpasync16_ca, cpasync16_cg (lane l's source at byte 16 l),
// and cpasync4_ca_packed, cpasync8_ca_packed (at byte W l), cpasync{4,8,16}_ca_lines (at
// byte 128 l). For ldsm/stsm, a_l is the row
// address lane l supplies, in 16-byte units (lanes 0-7 for .x1, 0-15 for .x2, 0-31 for
// .x4; the others are not read); for cp.async, lane l copies its `width` bytes to shared
// element a_l (in units of the width), or nothing where a_l < 0.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <fstream>
#include <sstream>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define SMEM_BYTES 49152

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// ldmatrix: every lane takes part; lanes past the shape's count supply row 0
template <int X, bool T>
__global__ void probe_ldsm(const int* __restrict__ rows, uint32_t* out) {
  __shared__ __align__(128) unsigned char smem[SMEM_BYTES];
  int t = threadIdx.x;
  for (int i = t; i < SMEM_BYTES / 4; i += 32) reinterpret_cast<uint32_t*>(smem)[i] = i;
  __syncwarp();
  int r = t < 8 * X ? rows[t] : 0;
  uint32_t a = smem_addr(smem + r * 16);
  uint32_t d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  if (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d0) : "r"(a));
  if (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(d0) : "r"(a));
  if (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(d0), "=r"(d1) : "r"(a));
  if (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(d0), "=r"(d1) : "r"(a));
  if (X == 4 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a));
  if (X == 4 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(a));
  out[t] = d0 + d1 + d2 + d3;
}

// stmatrix (sm_90): every lane takes part
template <int X, bool T>
__global__ void probe_stsm(const int* __restrict__ rows, uint32_t* out) {
  __shared__ __align__(128) unsigned char smem[SMEM_BYTES];
  int t = threadIdx.x;
  int r = t < 8 * X ? rows[t] : 0;
  uint32_t a = smem_addr(smem + r * 16);
  uint32_t v0 = t, v1 = t + 1, v2 = t + 2, v3 = t + 3;
  if (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(v0) : "memory");
  if (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(v0) : "memory");
  if (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
  if (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
  if (X == 4 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
  if (X == 4 && T) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
  __syncwarp();
  out[t] = reinterpret_cast<uint32_t*>(smem)[t * 97 % (SMEM_BYTES / 4)];
}

// cp.async: lane l copies `W` bytes of global memory to shared element a_l, from byte
// l * 16 of the source (GL = 0), l * W (GL = 1: the warp's sources packed) or l * 128
// (GL = 2: every lane in its own 128-byte line)
template <int W, bool CG, int GL>
__global__ void probe_cpasync(const int* __restrict__ elems, const uint4* __restrict__ src, uint32_t* out) {
  __shared__ __align__(128) unsigned char smem[SMEM_BYTES];
  int t = threadIdx.x;
  int e = elems[t];
  if (e >= 0) {
    uint32_t a = smem_addr(smem + e * W);
    const void* g = reinterpret_cast<const unsigned char*>(src) + t * (GL == 0 ? 16 : GL == 1 ? W : 128);
    if (W == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a), "l"(g) : "memory");
    if (W == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(a), "l"(g) : "memory");
    if (W == 16 && !CG) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(a), "l"(g) : "memory");
    if (W == 16 && CG) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(a), "l"(g) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncwarp();
  out[t] = reinterpret_cast<uint32_t*>(smem)[t * 97 % (SMEM_BYTES / 4)];
}

struct Pat { std::string name, shape; int n; std::vector<int> a; };

static std::vector<Pat> load(const char* path) {
  std::ifstream f(path);
  if (!f) { fprintf(stderr, "%s: cannot read\n", path); exit(2); }
  std::vector<Pat> ps;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    Pat p; std::string bar;
    is >> p.name >> p.shape >> p.n >> bar;
    p.a.assign(32, -1);
    for (int i = 0; i < p.n && i < 32; i++) is >> p.a[i];
    ps.push_back(p);
  }
  return ps;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: probe_matrix matrix_patterns.txt\n"); return 2; }
  auto ps = load(argv[1]);
  int* dA; uint32_t* dOut; uint4* dSrc;
  CK(cudaMalloc(&dA, 32 * 4)); CK(cudaMalloc(&dOut, 32 * 4)); CK(cudaMalloc(&dSrc, 32 * 128));
  CK(cudaMemset(dSrc, 1, 32 * 128));
  for (auto& p : ps) {
    CK(cudaMemcpy(dA, p.a.data(), 32 * 4, cudaMemcpyHostToDevice));
    const std::string& s = p.shape;
    if (s == "ldsm_x1") probe_ldsm<1, false><<<1, 32>>>(dA, dOut);
    else if (s == "ldsm_x2") probe_ldsm<2, false><<<1, 32>>>(dA, dOut);
    else if (s == "ldsm_x4") probe_ldsm<4, false><<<1, 32>>>(dA, dOut);
    else if (s == "ldsm_x1_t") probe_ldsm<1, true><<<1, 32>>>(dA, dOut);
    else if (s == "ldsm_x2_t") probe_ldsm<2, true><<<1, 32>>>(dA, dOut);
    else if (s == "ldsm_x4_t") probe_ldsm<4, true><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x1") probe_stsm<1, false><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x2") probe_stsm<2, false><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x4") probe_stsm<4, false><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x1_t") probe_stsm<1, true><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x2_t") probe_stsm<2, true><<<1, 32>>>(dA, dOut);
    else if (s == "stsm_x4_t") probe_stsm<4, true><<<1, 32>>>(dA, dOut);
    else if (s == "cpasync4_ca") probe_cpasync<4, false, 0><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync8_ca") probe_cpasync<8, false, 0><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync16_ca") probe_cpasync<16, false, 0><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync16_cg") probe_cpasync<16, true, 0><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync4_ca_packed") probe_cpasync<4, false, 1><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync8_ca_packed") probe_cpasync<8, false, 1><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync4_ca_lines") probe_cpasync<4, false, 2><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync8_ca_lines") probe_cpasync<8, false, 2><<<1, 32>>>(dA, dSrc, dOut);
    else if (s == "cpasync16_ca_lines") probe_cpasync<16, false, 2><<<1, 32>>>(dA, dSrc, dOut);
    else { fprintf(stderr, "%s: unknown shape %s\n", p.name.c_str(), s.c_str()); return 2; }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("launched %s %s\n", p.name.c_str(), s.c_str());
  }
  return 0;
}
