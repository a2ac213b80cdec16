// ml.cu — more machine-learning kernels (contraction corpus).
#include <cuda_runtime.h>

// rotary position embedding: x*cos - y*sin, x*sin + y*cos
extern "C" __global__ void rope(float *q, const float *cs, const float *sn, int tokens, int dim) {
  int t = blockIdx.x, i = threadIdx.x;
  if (t >= tokens || 2 * i >= dim) return;
  float x = q[t * dim + 2 * i], y = q[t * dim + 2 * i + 1], c = cs[t * dim / 2 + i], s = sn[t * dim / 2 + i];
  q[t * dim + 2 * i] = x * c - y * s;
  q[t * dim + 2 * i + 1] = x * s + y * c;
}

// LSTM cell
__device__ float sigm(float x) { return 1.f / (1.f + expf(-x)); }
extern "C" __global__ void lstm(float *h, float *c, const float *gates, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float ig = sigm(gates[4 * i]), fg = sigm(gates[4 * i + 1]), gg = tanhf(gates[4 * i + 2]), og = sigm(gates[4 * i + 3]);
  float cn = fg * c[i] + ig * gg;
  c[i] = cn;
  h[i] = og * tanhf(cn);
}

// batch-norm forward (training) and backward for one channel per block
extern "C" __global__ void bn_fwd(float *y, float *mean_out, float *var_out, const float *x, int n, float gamma, float beta, float eps) {
  __shared__ float s1[256], s2[256];
  float a = 0, b = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) { float v = x[blockIdx.x * n + i]; a += v; b += v * v; }
  s1[threadIdx.x] = a; s2[threadIdx.x] = b;
  __syncthreads();
  for (int k = blockDim.x / 2; k; k >>= 1) {
    if (threadIdx.x < k) { s1[threadIdx.x] += s1[threadIdx.x + k]; s2[threadIdx.x] += s2[threadIdx.x + k]; }
    __syncthreads();
  }
  float mean = s1[0] / n, var = s2[0] / n - mean * mean, inv = rsqrtf(var + eps);
  if (threadIdx.x == 0) { mean_out[blockIdx.x] = mean; var_out[blockIdx.x] = var; }
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[blockIdx.x * n + i] = gamma * (x[blockIdx.x * n + i] - mean) * inv + beta;
}
extern "C" __global__ void bn_bwd(float *dx, const float *dy, const float *x, const float *mean, const float *var, int n, float gamma, float eps,
                                  float sdy, float sdyx) {
  int c = blockIdx.y, i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float inv = rsqrtf(var[c] + eps), xh = (x[c * n + i] - mean[c]) * inv;
  dx[c * n + i] = gamma * inv / n * (n * dy[c * n + i] - sdy - xh * sdyx);
}

// direct 3x3 convolution, one output pixel per thread, 4 input channels
extern "C" __global__ void conv3(float *o, const float *in, const float *w, const float *bias, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, oc = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[oc];
  for (int ic = 0; ic < 4; ic++)
#pragma unroll
    for (int ky = -1; ky <= 1; ky++)
#pragma unroll
      for (int kx = -1; kx <= 1; kx++) {
        int xx = x + kx, yy = y + ky;
        float v = xx >= 0 && yy >= 0 && xx < W && yy < H ? in[(ic * H + yy) * W + xx] : 0.f;
        acc += w[((oc * 4 + ic) * 3 + ky + 1) * 3 + kx + 1] * v;
      }
  o[(oc * H + y) * W + x] = fmaxf(acc, 0.f);
}

// GEMV with warp reduction, then RMS normalisation
extern "C" __global__ void gemv_rms(float *y, const float *A, const float *x, const float *g, int rows, int cols, float eps) {
  int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x & 31;
  if (r >= rows) return;
  float s = 0, ss = 0;
  for (int c = l; c < cols; c += 32) { float v = A[(size_t)r * cols + c] * x[c]; s += v; ss += x[c] * x[c]; }
  for (int o = 16; o; o >>= 1) { s += __shfl_xor_sync(~0u, s, o); ss += __shfl_xor_sync(~0u, ss, o); }
  if (l == 0) y[r] = s * rsqrtf(ss / cols + eps) * g[r];
}

// softmax backward: dx = y * (dy - sum(dy * y))
extern "C" __global__ void softmax_bwd(float *dx, const float *y, const float *dy, int rows, int cols) {
  int r = blockIdx.x;
  __shared__ float red[32];
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += dy[r * cols + c] * y[r * cols + c];
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? red[threadIdx.x] : 0;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    if (threadIdx.x == 0) red[0] = s;
  }
  __syncthreads();
  s = red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) dx[r * cols + c] = y[r * cols + c] * (dy[r * cols + c] - s);
}

// online (streaming) softmax-weighted sum, double
extern "C" __global__ void online_softmax(double *out, const double *s, const double *v, int n, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double m = -1e300, d = 0, acc = 0;
  for (int j = 0; j < n; j++) {
    double x = s[r * n + j], mn = fmax(m, x), a = exp(m - mn), e = exp(x - mn);
    d = d * a + e;
    acc = acc * a + e * v[j];
    m = mn;
  }
  out[r] = acc / d;
}

// smooth L1 / Huber loss gradient and a momentum SGD update, branchy
extern "C" __global__ void huber_sgd(float *w, float *mom, const float *pred, const float *tgt, int n, float delta, float lr, float mu, float wd) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = pred[i] - tgt[i], g;
  if (fabsf(r) <= delta) g = r;
  else g = delta * copysignf(1.f, r);
  g += wd * w[i];
  float m = mu * mom[i] + g;
  mom[i] = m;
  w[i] -= lr * (g + mu * m);
}
