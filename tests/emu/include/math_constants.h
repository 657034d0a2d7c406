#pragma once
#include "cuda_emu.h"
#define CUDART_INF_F INFINITY
#define CUDART_NAN_F NAN
#define CUDART_PI_F 3.141592654f
#define CUDART_SQRT_HALF_F 0.707106781f
