#include "gtest/gtest.h"
TEST(Placeholder, BeingWritten) {}
