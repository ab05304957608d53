# Sourced by the bench scripts that run on the GPU machine (graphs_bench.sh, hostprof.sh), from
# the repository root: unpacks the carried build (always: the device keeps ignored folders between
# calls, so an existing build-gpu/carry may be stale) and puts the machine's NVIDIA Python
# libraries and the carried Debian libraries on the library path. Sets carry=build-gpu/carry.
carry=build-gpu/carry
[ -f build-gpu/carry.tar.xz ] && tar -C build-gpu -xJf build-gpu/carry.tar.xz
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia
export LD_LIBRARY_PATH="$NV/cu13/lib:$NV/cudnn/lib:$PWD/$carry/lib:${LD_LIBRARY_PATH:-}"
