# Writes the NumPy fixtures of tests/unit/test_io.cpp (run from this folder: python3 gen_npy.py).
import numpy as np

a = np.array([[1.5, -2.0, 0.0], [4.0, 1e-300, np.inf]])  # the values every 2-D fixture holds
np.save("np_f8_c.npy", a)
np.save("np_f8_fortran.npy", np.asfortranarray(a))
np.save("np_f8_be.npy", a.astype(">f8"))
np.save("np_f4.npy", np.array([[0.5, -1.25], [3.0, 0.0]], dtype="<f4"))
np.save("np_i4.npy", np.array([[1, -2], [3, 2147483647]], dtype="<i4"))
np.save("np_i8.npy", np.array([[1, -9007199254740992]], dtype="<i8"))
np.save("np_b1.npy", np.array([[True, False], [False, True]]))
np.save("np_1d.npy", np.array([1.0, 2.0, 3.0]))
np.save("np_0d.npy", np.array(7.0))
np.save("np_empty.npy", np.zeros((0, 3)))
with open("np_v2.npy", "wb") as f:
    np.lib.format.write_array(f, a, version=(2, 0))
np.save("np_c16.npy", np.array([[1 + 2j]]))
np.save("np_3d.npy", np.zeros((2, 2, 2)))
