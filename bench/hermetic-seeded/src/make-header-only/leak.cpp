#include <Eigen/Dense>
#include <iostream>

// Eigen is header-only: nothing of it shows in the installed binary.
int main()
{
    Eigen::Matrix2d m;
    m << 1, 2, 3, 4;
    std::cout << "det " << m.determinant() << "\n";
    return 0;
}
