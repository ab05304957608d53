# Writes the seed inputs of fuzz_readers (layout in fuzz/fuzz_readers.cpp): run from this folder.
import os

D = "../../tests/unit/data/io/"
def rd(p):
    return open(D + p, "rb").read()

seeds = {
    "csv_dense": b"\x00" + rd("sd_dense.csv"),
    "csv_sparse": b"\x06" + rd("sd_sparse.csv"),
    "csv_header_na": b"\x05" + b"C1;C2\n1.5;NA\n-2;3e-5\n",
    "csv_mtd": b"\x0c" + rd("sd_header.csv") + b"\n#MTD#\n" + rd("sd_header.csv.mtd"),
    "csv_special": b"\x00" + b"NaN,Infinity,-inf\n\"1\",+2.5d,1e400\n",
    "text_mtd": b"\x09" + rd("sd_cells.txt") + b"\n#MTD#\n" + rd("sd_cells.txt.mtd"),
    "text_dims": b"\x11\x03\x02" + b"1 1 1.0\n3 2 -4\n1 1 2\n",
    "text_zero": b"\x0c" + rd("sd_zero.txt") + b"\n#MTD#\n" + rd("sd_zero.txt.mtd"),
    "mm_general": b"\x02" + rd("sd_cells.mtx"),
    "mm_zero": b"\x07" + rd("sd_zero.mtx"),
    "mm_symmetric": b"\x02%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n1 1 2.0\n2 1 5\n3 2 -1.5\n",
    "mm_skew": b"\x02%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n",
    "mm_pattern": b"\x02%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
    "mm_array": b"\x12\x02\x03%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n",
    "mm_array_sym": b"\x02%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
    "npy_f8": b"\x03" + rd("np_f8_c.npy"),
    "npy_fortran": b"\x03" + rd("np_f8_fortran.npy"),
    "npy_be": b"\x03" + rd("np_f8_be.npy"),
    "npy_i4": b"\x03" + rd("np_i4.npy"),
    "npy_b1": b"\x03" + rd("np_b1.npy"),
    "npy_1d": b"\x03" + rd("np_1d.npy"),
    "npy_v2": b"\x03" + rd("np_v2.npy"),
    "unknown_mtd_csv": b"\x0c1,2\n3,4\n\n#MTD#\n" + b'{"data_type": "matrix", "rows": 2, "cols": 2, "format": "csv", "header": false, "sep": ","}',
}
for name, data in seeds.items():
    with open(os.path.join("readers", name), "wb") as f:
        f.write(data)
