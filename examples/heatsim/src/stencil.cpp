// Five-point stencil update for the 2-D heat equation.
#include <vector>
void heatsim_step(std::vector<double>& u, int nx, int ny, double alpha) {
  std::vector<double> next(u);
  for (int j = 1; j < ny - 1; ++j)
    for (int i = 1; i < nx - 1; ++i)
      next[j * nx + i] = u[j * nx + i] + alpha * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                                  u[(j - 1) * nx + i] + u[(j + 1) * nx + i] -
                                                  4.0 * u[j * nx + i]);
  u.swap(next);
}
