// Umbrella header of dmlrt's embedded API: #include <dmlrt/dmlrt.h>.
#pragma once

#include "dmlrt/api.h"
#include "dmlrt/error.h"
#include "dmlrt/matrix.h"
#include "dmlrt/version.h"
