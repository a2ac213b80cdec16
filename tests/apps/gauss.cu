// gauss — Gaussian elimination with partial pivoting on the GPU, in double and in float: for each column a
// one-block argmax finds the pivot (ties to the lowest row), a kernel swaps the rows, a 2-D kernel eliminates
// below the pivot (a[i][j] -= l * a[k][j]: an FMA), then back substitution with one block per solve.
// 96 unknowns, 3 right-hand sides; the matrix is made badly scaled so that pivoting matters.
#include "apps.h"

constexpr int N = 96, RHS = 3, W = N + RHS;  // the augmented matrix is N x W, row-major

template <class T> __global__ void find_pivot(const T *a, int k, int *piv) {
  __shared__ T best[128];
  __shared__ int row[128];
  int t = threadIdx.x, i = k + t;
  best[t] = i < N ? fabs(a[i * W + k]) : T(-1);
  row[t] = i;
  __syncthreads();
  for (int w = 64; w > 0; w >>= 1) {
    if (t < w) {
      T o = best[t + w];
      if (o > best[t] || (o == best[t] && row[t + w] < row[t])) {
        best[t] = o;
        row[t] = row[t + w];
      }
    }
    __syncthreads();
  }
  if (t == 0) piv[k] = row[0];
}

template <class T> __global__ void swap_rows(T *a, int k, const int *piv) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, p = piv[k];
  if (j >= W || p == k) return;
  T tmp = a[k * W + j];
  a[k * W + j] = a[p * W + j];
  a[p * W + j] = tmp;
}

// Rows k+1 .. N-1, columns k+1 .. W-1 (column k, which every thread reads, is cleared by the next kernel).
template <class T> __global__ void eliminate(T *a, int k) {
  int j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x, i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= N || j >= W) return;
  T l = a[i * W + k] / a[k * W + k];
  a[i * W + j] -= l * a[k * W + j];
}

template <class T> __global__ void clear_column(T *a, int k) {
  int i = k + 1 + threadIdx.x;
  if (i < N) a[i * W + k] = 0;
}

// One block per right-hand side; thread t owns row t's running sum.
template <class T> __global__ void back_substitute(const T *a, T *x) {
  __shared__ T xs[N];
  int c = N + blockIdx.x, t = threadIdx.x;
  T sum = t < N ? a[t * W + c] : T(0);
  for (int k = N - 1; k >= 0; k--) {
    if (t == k) xs[k] = sum / a[k * W + k];
    __syncthreads();
    if (t < k) sum -= a[t * W + k] * xs[k];
  }
  if (t < N) x[blockIdx.x * N + t] = xs[t];
}

template <class T> static std::vector<T> solve(const std::vector<double> &m, std::vector<int> &pivots) {
  std::vector<T> h(m.begin(), m.end());
  T *a = to_device(h), *x;
  int *piv;
  TRY(cudaMalloc(&x, N * RHS * sizeof(T)));
  TRY(cudaMalloc(&piv, N * sizeof(int)));
  for (int k = 0; k < N; k++) {
    find_pivot<T><<<1, 128>>>(a, k, piv);
    swap_rows<T><<<(W + 127) / 128, 128>>>(a, k, piv);
    dim3 block(16, 16), grid((W - k - 1 + 15) / 16, (N - k - 1 + 15) / 16);
    if (k + 1 < N) eliminate<T><<<grid, block>>>(a, k);
    clear_column<T><<<1, 128>>>(a, k);
    LAUNCHED();
  }
  back_substitute<T><<<RHS, 128>>>(a, x);
  LAUNCHED();
  pivots = to_host(piv, N);
  std::vector<T> r = to_host(x, N * RHS);
  TRY(cudaFree(a));
  TRY(cudaFree(x));
  TRY(cudaFree(piv));
  return r;
}

int main() {
  begin();
  Lcg rng(5);
  std::vector<double> m(N * W);
  for (int i = 0; i < N; i++) {
    double scale = (i % 7 == 3) ? 0x1p-12 : (i % 5 == 1) ? 0x1p+6 : 1.0;  // rows of very different sizes
    for (int j = 0; j < N; j++) m[i * W + j] = scale * rng.sym();
    for (int c = 0; c < RHS; c++) m[i * W + N + c] = c == 0 ? 1.0 : rng.sym();
  }
  std::vector<int> pd, pf;
  std::vector<double> xd = solve<double>(m, pd);
  std::vector<float> xf = solve<float>(m, pf);
  report("pivot rows (double)", pd);
  report("x (double)", xd);
  report("pivot rows (float)", pf);
  report("x (float)", xf);
  // Residuals on the host: |A x - b| / (|A| |x|).
  for (int prec = 0; prec < 2; prec++) {
    double worst = 0;
    for (int c = 0; c < RHS; c++)
      for (int i = 0; i < N; i++) {
        double s = 0, mag = 0;
        for (int j = 0; j < N; j++) {
          double xj = prec ? xf[c * N + j] : xd[c * N + j];
          s += m[i * W + j] * xj;
          mag += fabs(m[i * W + j] * xj);
        }
        worst = fmax(worst, fabs(s - m[i * W + N + c]) / mag);
      }
    check(worst < (prec ? 1e-4 : 1e-12), "%s solution's relative residual is small", prec ? "float" : "double");
  }
  return finish("gauss");
}
