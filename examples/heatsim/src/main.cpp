#include <cstdio>
#include <vector>
void heatsim_step(std::vector<double>& u, int nx, int ny, double alpha);
int main() {
  std::vector<double> u(64 * 64, 0.0);
  u[32 * 64 + 32] = 1.0;
  for (int t = 0; t < 100; ++t) heatsim_step(u, 64, 64, 0.1);
  std::printf("%f\n", u[32 * 64 + 32]);
  return 0;
}
