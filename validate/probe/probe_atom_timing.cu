// Shared-memory atomics timing on one SM, with clock64 (no ncu), beside plain loads as a
// reference measured in the same run. Prints CSV:
//   op,pattern,k,latency_cycles,throughput_cycles_per_warp_instr
// (validate/probe/run_atom_timing.sh adds the SASS opcode each kernel compiled to).
//
// ops:
//   ld       ld.volatile.shared.u32                                  (LDS)
//   atom     atom.shared.add.u32, result used                        (ATOMS.ADD)
//   red_inc  atomicAdd(&sh[i], 1u), result unused: what CUDA C gives  (ATOMS.POPC.INC)
//   red_add  red.shared.add.u32 of a run-time value, result unused   (ATOMS.ADD RZ)
//   st       st.volatile.shared.u32 (throughput only)                 (STS)
// patterns (word of lane l; k is the CSV's k column):
//   distinct  l      (k = 1: distinct words on distinct banks, conflict-free)
//   same      0      (k = 0: all lanes one word)
//   kway      l * k  (k = 2, 4, 8, 16, 32: k-way bank conflicts on distinct words)
//   xwarp     l * k  (k = 1, 2: as distinct and kway, but every warp of the throughput
//                    kernels on the same words, not a word range of its own: atomics
//                    of different warps on one word back to back)
// latency = clock64 cycles per operation of a dependent chain by one warp: the word
// holds its own index (sh[a] = a) and a = op(sh[a]): for ld a = sh[a], for atom
// a = atomicAdd(&sh[a], inc) with inc = 0 given at run time (the compiler cannot know
// it), so every atomic waits for the previous one's returned value. ld and atom run the
// same loop (one address computation per step). A result-unused atomic has no result to
// chain through: its latency column is empty.
// throughput = cycles per warp-instruction when the 32 warps of one 1024-thread block
// issue independent operations of the pattern, 8 per loop step; warp w works on words
// w * 1024 + pattern (a shift by a multiple of 32 words keeps the bank pattern, and
// warps never share a word, so atomics of different warps never wait for one another's
// word). Results of ld and atom are summed and stored, atomics and volatile loads are
// never merged or removed.
// Usage: probe_atom_timing [ITERS_LAT [ITERS_THR]]   (defaults 4096 and 512)
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

#define WARPS 32
#define WARP_WORDS 1024                       // words per warp in the throughput kernels
#define THR_BYTES (WARPS * WARP_WORDS * 4)    // 128 KiB of dynamic shared memory
#define LAT_BYTES (32 * 32 * 4)

__device__ __forceinline__ uint32_t op_ld(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t op_atom(uint32_t addr, uint32_t inc) {
  uint32_t v;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(v) : "r"(addr), "r"(inc) : "memory");
  return v;
}
__device__ __forceinline__ void op_red_add(uint32_t addr, uint32_t inc) {
  asm volatile("red.shared.add.u32 [%0], %1;" : : "r"(addr), "r"(inc) : "memory");
}
__device__ __forceinline__ void op_st(uint32_t addr, uint32_t v) {
  asm volatile("st.volatile.shared.u32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
}

// ---- latency: one warp, a dependent chain
extern "C" __global__ void lat_ld(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  extern __shared__ __align__(16) uint32_t sh[];
  int lane = threadIdx.x;
  uint32_t a = (uint32_t)(lane * k);
  sh[a] = a;
  __syncwarp();
  uint32_t base = (uint32_t)__cvta_generic_to_shared(sh);
  uint32_t v = a;
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) v = op_ld(base + v * 4);
  __syncwarp();
  long long t1 = clock64();
  sink[lane] = v + inc;
  if (lane == 0) cyc[0] = t1 - t0;
}
extern "C" __global__ void lat_atom(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  extern __shared__ __align__(16) uint32_t sh[];
  int lane = threadIdx.x;
  uint32_t a = (uint32_t)(lane * k);
  sh[a] = a;
  __syncwarp();
  uint32_t base = (uint32_t)__cvta_generic_to_shared(sh);
  uint32_t v = a;
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) v = op_atom(base + v * 4, inc);
  __syncwarp();
  long long t1 = clock64();
  sink[lane] = v;
  if (lane == 0) cyc[0] = t1 - t0;
}

// ---- throughput: 32 warps, independent operations, 8 per loop step (k < 0: the xwarp
// pattern of -k, every warp on the same words)
#define THR_PROLOGUE                                                             \
  extern __shared__ __align__(16) uint32_t sh[];                                 \
  int t = threadIdx.x, lane = t & 31, w = t >> 5;                                \
  for (int i = t; i < WARPS * WARP_WORDS; i += blockDim.x) sh[i] = i;            \
  __syncthreads();                                                               \
  uint32_t word = (uint32_t)((k < 0 ? 0 : w * WARP_WORDS) + lane * (k < 0 ? -k : k)); \
  uint32_t addr = (uint32_t)__cvta_generic_to_shared(sh) + word * 4;             \
  uint32_t acc = 0;                                                              \
  long long t0 = clock64();
#define THR_EPILOGUE                                                             \
  __syncthreads();                                                               \
  long long t1 = clock64();                                                      \
  sink[t] = acc;                                                                 \
  if (t == 0) cyc[0] = t1 - t0;
#define EIGHT(x) x; x; x; x; x; x; x; x

extern "C" __global__ void thr_ld(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  THR_PROLOGUE
#pragma unroll 1
  for (int i = 0; i < iters; i++) { EIGHT(acc += op_ld(addr)); }
  acc += inc;
  THR_EPILOGUE
}
extern "C" __global__ void thr_atom(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  THR_PROLOGUE
#pragma unroll 1
  for (int i = 0; i < iters; i++) { EIGHT(acc += op_atom(addr, inc)); }
  THR_EPILOGUE
}
extern "C" __global__ void thr_red_inc(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  THR_PROLOGUE
  uint32_t* p = sh + word;
#pragma unroll 1
  for (int i = 0; i < iters; i++) { EIGHT(atomicAdd(p, 1u)); }
  acc += inc;
  THR_EPILOGUE
}
extern "C" __global__ void thr_red_add(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  THR_PROLOGUE
#pragma unroll 1
  for (int i = 0; i < iters; i++) { EIGHT(op_red_add(addr, inc)); }
  THR_EPILOGUE
}

extern "C" __global__ void thr_st(int k, int iters, uint32_t inc, long long* cyc, uint32_t* sink) {
  THR_PROLOGUE
#pragma unroll 1
  for (int i = 0; i < iters; i++) { EIGHT(op_st(addr, (uint32_t)i + inc)); }
  THR_EPILOGUE
}

typedef void (*Kernel)(int, int, uint32_t, long long*, uint32_t*);

static double run(Kernel f, int threads, int bytes, int k, int iters, long long* dcyc, uint32_t* dsink) {
  f<<<1, threads, bytes>>>(k, 16, 0, dcyc, dsink);  // warm-up: code and shared memory in place
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  f<<<1, threads, bytes>>>(k, iters, 0, dcyc, dsink);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  long long c;
  CK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost));
  return (double)c;
}

int main(int argc, char** argv) {
  int lat_iters = argc > 1 ? atoi(argv[1]) : 4096;
  int thr_iters = argc > 2 ? atoi(argv[2]) : 512;
  if (lat_iters <= 0 || thr_iters <= 0) {
    fprintf(stderr, "usage: probe_atom_timing [ITERS_LAT [ITERS_THR]] (positive counts)\n");
    return 2;
  }
  long long* dcyc; uint32_t* dsink;
  CK(cudaMalloc(&dcyc, 64)); CK(cudaMalloc(&dsink, 1024 * 4));
  Kernel thr[] = {thr_ld, thr_atom, thr_red_inc, thr_red_add, thr_st};
  for (Kernel f : thr) CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, THR_BYTES));
  struct { const char* op; Kernel lat; Kernel thr; } ops[] = {
    {"ld", lat_ld, thr_ld}, {"atom", lat_atom, thr_atom},
    {"red_inc", nullptr, thr_red_inc}, {"red_add", nullptr, thr_red_add},
    {"st", nullptr, thr_st},
  };
  struct { const char* name; int k; } pats[] = {
    {"distinct", 1}, {"same", 0}, {"kway", 2}, {"kway", 4}, {"kway", 8}, {"kway", 16}, {"kway", 32},
    {"xwarp", -1}, {"xwarp", -2},
  };
  printf("op,pattern,k,latency_cycles,throughput_cycles_per_warp_instr\n");
  for (auto& o : ops) {
    for (auto& p : pats) {
      char lat[32] = "";
      if (o.lat && p.k >= 0) snprintf(lat, sizeof lat, "%.2f", run(o.lat, 32, LAT_BYTES, p.k, lat_iters, dcyc, dsink) / lat_iters);
      double c = run(o.thr, WARPS * 32, THR_BYTES, p.k, thr_iters, dcyc, dsink);
      printf("%s,%s,%d,%s,%.3f\n", o.op, p.name, p.k < 0 ? -p.k : p.k, lat, c / ((double)thr_iters * 8 * WARPS));
      fflush(stdout);
    }
  }
  return 0;
}
